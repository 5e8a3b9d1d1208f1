// Command bench-runtime measures the runtime against its floors in one
// run, as ratios and differences, so the figures hold on a machine of any
// speed (docs/runtime.md has the targets and the runs behind them):
//
//   - `bash -c true` through the shim, with a live hub as `swetouch run`
//     starts it, against bash, and beside C wrappers that only spawn bash
//     or also ask a listener process: in the hub's process, in one of its
//     own, and in the agent's sandbox; and, in the same turns as the
//     shim, its fast path's C built alone, without Go's runtime;
//   - `grep -rn` over a 5,000-file tree through the shim vs direct,
//     paired;
//   - watching a 20,000-file tree: time until ready and the process's RSS;
//   - a tools/call to the reference filesystem MCP server through
//     `swetouch mcp` (stdio) vs direct, beside a pipe copy and a pipe copy
//     that tells a listener of each call;
//   - a tools/call to an HTTP MCP server through `swetouch mcp
//     --upstream`, beside a TCP proxy and net/http/httputil's reverse
//     proxy, and again with hand-written HTTP/1.1 ends;
//   - the same stdio calls, a short one and a 16 KiB read, through an
//     MCP proxy built from mcp-go as Go's peers are;
//   - a sandboxed `swetouch run` against an unsandboxed one;
//   - classifying the corpus's commands vs parsing them alone.
//
// Each target is printed beside its floor and its budget at the end;
// -json prints those figures as JSON on stdout instead (the detail lines
// go to stderr), to keep a run's record.
//
// Run: go run ./scripts/bench-runtime [-n 300] [-json] [-only shell,grep,mcp,http,peer,watch,sandbox,classify]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/baseline"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/watch"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == helperPairs {
		pairsHelper(os.Args[1:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == helperAbsPairs {
		absPairsHelper(os.Args[1:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == helperHub {
		hubHelper(os.Args[1:])
		return
	}
	if len(os.Args) > 1 && helper(os.Args[1:]) {
		return
	}
	n := flag.Int("n", 1000, "runs of each trivial command (300 left the shim's ratio to its floor moving by a third from run to run)")
	calls := flag.Int("calls", 1500, "MCP calls through each way of the relays' parts (they take turns call by call)")
	only := flag.String("only", "", "measure only these parts (comma-separated: shell, grep, mcp, http, peer, watch, sandbox, classify)")
	asJSON := flag.Bool("json", false, "print the targets' figures as JSON on stdout (the detail goes to stderr)")
	runs := flag.Int("runs", 1, "measure everything this many times over and end with each target's range over the runs (each figure in -json says its run)")
	corpus := flag.String("corpus", filepath.Join("..", "shared", "corpus"), "the corpus whose commands classify measures")
	cpuProfile := flag.String("cpuprofile", "", "write this process's CPU profile (the shell parts' hub, the clients) to the file")
	compare := flag.String("compare", "", "a directory holding another build's swetouch and swetouch-shim (and its bench-runtime, to run its hub too): its stdio relay (with -only mcp) and its HTTP relay (with -only http), each with a live hub of its own, take turns with this build's, and the parts say what each adds, paired (for A/B of a change: this VM's speed moves more between runs than most changes do)")
	hubProfile := flag.String("hubprofile", "", "write the relays' hub processes' CPU profiles to this file name with .live, .bare and .in-process added (with -runs, the last run's)")
	flag.Parse()
	if *hubProfile != "" {
		os.Setenv(hubProfileEnv, *hubProfile)
	}
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-runtime:", err)
			os.Exit(2)
		}
		defer stop()
	}
	parts := map[string]bool{}
	for _, p := range strings.Split(*only, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts[p] = true
		}
	}
	if *runs < 1 {
		fmt.Fprintln(os.Stderr, "bench-runtime: -runs must be at least 1")
		os.Exit(2)
	}
	out := io.Writer(os.Stdout)
	if *asJSON {
		out = os.Stderr
	}
	var figs []figure
	defer testbin.Cleanup() // after every run: the runs share the build
	for k := 1; k <= *runs; k++ {
		res := &results{out: out}
		if *runs > 1 {
			res.run = k
			res.say("\n== run %d of %d", k, *runs)
		}
		if err := runAll(res, *n, *calls, *corpus, *compare, func(p string) bool { return len(parts) == 0 || parts[p] }); err != nil {
			fmt.Fprintln(os.Stderr, "bench-runtime:", err)
			pprof.StopCPUProfile()
			testbin.Cleanup()
			os.Exit(1)
		}
		res.table(out)
		figs = append(figs, res.figs...)
	}
	if *runs > 1 {
		summary(out, figs)
	}
	if *asJSON {
		writeJSON(os.Stdout, figs)
	}
}

func runAll(res *results, n, calls int, corpus, compare string, want func(part string) bool) error {
	bin, err := testbin.Dir()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "swetouch-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "ws")
	if err := tree(ws, 5000, 50); err != nil {
		return err
	}
	// the hub as swetouch run has it, for the shell's parts; the relays
	// get hubs in processes of their own
	host, stop, err := recordingHost(ws, filepath.Join(bin, "swetouch-shim"))
	if err != nil {
		return err
	}
	defer stop()
	env := host.Env(os.Environ())
	bash, _ := exec.LookPath("bash")
	shim := filepath.Join(host.ShimDir, "bash")

	if want("shell") {
		if err := shellParts(res, n, tmp, ws, bash, shim, env); err != nil {
			return err
		}
		if err := absolutePathPart(res, n, bin, ws, host, env); err != nil {
			return err
		}
	}
	if want("grep") {
		if err := grepPart(res, tmp, ws, bash, shim, env); err != nil {
			return err
		}
	}
	if want("mcp") || want("http") || want("peer") {
		live, err := hubProcess(ws, "live", filepath.Join(bin, "swetouch-shim"))
		if err != nil {
			return err
		}
		defer live.stop()
		if want("mcp") {
			if err := stdioPart(res, calls, bin, ws, live); err != nil {
				return err
			}
			if compare != "" {
				if err := comparePart(res, calls, bin, compare, ws); err != nil {
					return err
				}
			}
		}
		if want("http") {
			if err := httpPart(res, calls, bin, live, ws); err != nil {
				return err
			}
			if compare != "" {
				if err := compareHTTPPart(res, calls, bin, compare, ws); err != nil {
					return err
				}
			}
		}
		if want("peer") {
			if err := peerPart(res, calls, bin, ws, live); err != nil {
				return err
			}
		}
	}
	if want("sandbox") {
		if err := sandboxPart(res, n, bin, ws, host, env); err != nil {
			return err
		}
	}
	if want("watch") {
		if err := watchPart(res, tmp); err != nil {
			return err
		}
		if err := burstPart(res, tmp); err != nil {
			return err
		}
	}
	if want("classify") {
		if err := classifyPart(res, corpus); err != nil {
			return err
		}
	}
	return nil
}

func shellParts(res *results, n int, tmp, ws, bash, shim string, env []string) error {
	p := pair(n, ws, bash, shim, env, "true")
	res.say("bash -c true            median %.2f ms; through the shim %.2f ms; added %.2f ms, paired (%.2f× bash; difference of the medians %.2f)", ms(p.direct), ms(p.through), ms(p.added), float64(p.added)/float64(p.direct), ms(p.through-p.direct))
	goPath := pair(n, ws, bash, shim, append(env[:len(env):len(env)], "SWETOUCH_SHIM_GO=1"), "true")
	res.say("  the shim's Go path (SWETOUCH_SHIM_GO=1; the C fast path is the default): added %.2f ms", ms(goPath.added))
	noHub := append(os.Environ(), "SWETOUCH_SHIM_DIR="+filepath.Dir(shim))
	res.say("  without a session (the shim execs bash): added %.2f ms", ms(pair(n, ws, bash, shim, noHub, "true").added))
	if floor, err := goFloor(tmp, bash); err == nil {
		res.say("  a Go program that only execs bash (why the fast path is C): added %.2f ms", ms(pair(n, ws, bash, floor, os.Environ(), "true").added))
	}
	if floor, err := cFloor(tmp, bash, false); err == nil {
		f := pair(n, ws, bash, floor, os.Environ(), "true")
		res.say("  floor: a static C program that spawns bash and waits added %.2f ms (%.2f× bash); the shim adds %.2f× that", ms(f.added), float64(f.added)/float64(f.direct), float64(p.added)/float64(f.added))
	} else {
		res.say("  floor: not measured (%v)", err)
	}
	if err := askingFloor(res, n, tmp, ws, bash, p); err != nil {
		res.say("  floor asking a listener: not measured (%v)", err)
	}
	if err := fastAlonePart(res, n, tmp, ws, bash, shim, env); err != nil {
		res.say("  the fast path as a C program alone: not measured (%v)", err)
	}
	return nil
}

// grepPart measures `grep -rn` over the 5,000-file tree through the shim
// against grep direct, taking turns with the asking C wrapper (the least
// a wrapper that asks a hub before and tells it after can cost): the
// shim's cost is a fixed one, about what it adds to `bash -c true`, and
// the wrapper's ratio in the same turns says how near 1.03 this machine
// lets any such wrapper come.
func grepPart(res *results, tmp, ws, bash, shim string, env []string) error {
	// paired: each run through a wrapper less the direct run of its turn,
	// so that the VM's drift over the runs cancels; 41 turns left the
	// ratio moving by 0.02 from run to run, as much as the shim adds
	const runs = 121
	const script = "grep -rn needle . | wc -l"
	ways := []way{{shim, env}}
	asking, stop, ferr := askingWrapper(tmp, bash)
	if ferr == nil {
		defer stop()
		ways = append(ways, asking)
	}
	t := turns(runs, ws, bash, script, ways...)
	g := t[0]
	ratio := 1 + float64(g.added)/float64(g.direct)
	res.say("grep -rn, 5,000 files   median %.1f ms; through the shim %.1f ms; added %.2f ms, paired: ratio %.3f", ms(g.direct), ms(g.through), ms(g.added), ratio)
	f := figure{Target: "grep -rn through the shim / direct", Value: ratio, Unit: "×", Floor: 1, FloorIs: "direct", Budget: 1.03, Runs: runs}
	if ferr != nil {
		res.say("  floor: the asking C wrapper not measured (%v)", ferr)
	} else {
		fl := t[1]
		floorRatio := 1 + float64(fl.added)/float64(fl.direct)
		res.say("  floor: the asking C wrapper in the same turns added %.2f ms (ratio %.3f); the shim adds %.2f ms more", ms(fl.added), floorRatio, ms(g.added-fl.added))
		f = f.heldByWrapper(floorRatio)
	}
	res.target(f)
	return nil
}

// The targets stdioPart and readPart measure (named once: a skipped
// part lists them as not measured).
const (
	targetStdioAdded    = "MCP stdio added, live hub"
	targetStdioOverCopy = "MCP stdio added / pipe-copy floor"
	targetStdioOverTold = "MCP stdio added / pipe copy telling a listener"
	targetStdioCPU      = "MCP stdio CPU/call, relay+hub / telling floor"
	targetReadAdded     = "MCP stdio 16 KiB read added / pipe copy"
	targetReadCPU       = "MCP stdio 16 KiB read CPU/call, relay+hub / telling floor"
)

func stdioPart(res *results, n int, bin, ws string, live *helperProc) error {
	fs, err := agents.FindAgent("mcp-server-filesystem")
	if err != nil {
		res.say("MCP tools/call (stdio): not measured (%v)", err)
		res.notMeasured(err.Error(), targetStdioAdded, targetStdioOverCopy, targetStdioOverTold, targetStdioCPU, targetReadAdded, targetReadCPU)
		return nil
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	self, err := os.Executable()
	if err != nil {
		return err
	}
	relay := func(sock string) []string { return stdioRelay(bin, ws, sock, fs) }
	// a hub in a process of its own, as in a run, that neither watches
	// nor records
	bare, err := hubProcess(ws, "bare", "")
	if err != nil {
		return err
	}
	defer bare.stop()
	// the least a hub can be: a process that reads what it is told
	listener, err := listenerProcess(helperListener)
	if err != nil {
		return err
	}
	defer listener.stop()
	// the least a hub the relay reports to can be: the relay's telling
	// without a hub's work on what it is told
	drain, err := listenerProcess(helperDrain)
	if err != nil {
		return err
	}
	defer drain.stop()
	// all seven ways take turns, so each sees the machine as the others do
	t, cpu, sw, err := mcpTimes(n, ws, listDirs(), []int{live.pid, bare.pid, listener.pid, drain.pid}, []string{fs, ws}, relay(live.sock), []string{self, helperPipe, fs, ws}, relay(""), relay(bare.sock),
		[]string{self, helperPipeTold, listener.sock, fs, ws}, relay(drain.sock))
	if err != nil {
		return err
	}
	withHub, floor, alone, bareHub, told, drained := us(t[1]), us(t[2]), us(t[3]), us(t[4]), us(t[5]), us(t[6])
	res.say("MCP tools/call (stdio)  median %.0f µs direct; through the relay with a live hub added %.0f µs, paired over %d calls (%.2f× the floor)", us(t[0]), withHub, n, withHub/floor)
	res.say("  floor: a process that only copies the two pipes added %.0f µs", floor)
	res.say("  the relay with no session: added %.0f µs (the relay's own share %.0f µs)", alone, alone-floor)
	res.say("  telling a process that only reads what it is told (answering its first begin as a hub nothing can fire on): added %.0f µs (the relay's telling %.0f µs); the live hub's work on the lines %.0f µs", drained, drained-alone, withHub-drained)
	res.say("  with a hub that neither watches nor records: added %.0f µs (%.0f µs over the reading process); the live hub's watching and recording %.0f µs", bareHub, bareHub-drained, withHub-bareHub)
	res.say("  floor of any relay that tells a hub: the pipe copy writing a line to a process that only reads them once each result is out (as the relay tells its hub of a read), added %.0f µs (%.2f× the pipe copy's); the relay with the live hub adds %.2f× that", told, told/floor, withHub/told)
	// cpu: the ways' own processes (the server aside), then the live
	// hub, the bare hub, the listener and the reading process
	res.say("  CPU per call: the relay %.0f µs with the live hub (the hub %.0f µs), %.0f with the bare hub (the hub %.0f), %.0f telling the reading process (it %.0f), %.0f with no session; the pipe copy %.0f; the telling pipe copy %.0f (its listener %.0f)",
		cpu[1], cpu[7], cpu[4], cpu[8], cpu[6], cpu[10], cpu[3], cpu[2], cpu[5], cpu[9])
	res.say("  context switches per call, given up + taken: the relay %s with the live hub (the hub %s), %s with no session; the pipe copy %s; the telling pipe copy %s (its listener %s)",
		switches(sw[1]), switches(sw[7]), switches(sw[3]), switches(sw[2]), switches(sw[5]), switches(sw[9]))
	// +60 µs was set where the pipe copy added +38 µs: on a machine whose
	// pipe copy alone comes near it, it is held at that ratio
	res.target(figure{Target: targetStdioAdded, Value: withHub, Unit: "µs", Floor: told, FloorIs: "pipe copy telling a listener", Budget: 60, Runs: n}.
		rebase(38, floor, fmt.Sprintf("the pipe copy, +38 µs where set, +%.0f µs here", floor)))
	res.target(figure{Target: targetStdioOverCopy, Value: withHub / floor, Unit: "×", Floor: told / floor, FloorIs: "pipe copy telling a listener", Budget: 1.6, Runs: n})
	res.target(figure{Target: targetStdioOverTold, Value: withHub / told, Unit: "×", Floor: 1, FloorIs: "pipe copy telling a listener", Budget: 1.6, Runs: n})
	res.target(figure{Target: targetStdioCPU, Value: (cpu[1] + cpu[7]) / (cpu[5] + cpu[9]), Unit: "×", Floor: 1, FloorIs: "the telling pipe copy and its listener", Runs: n, Info: true})
	return readPart(res, n, ws, fs, live, listener, relay(live.sock), []string{self, helperPipe, fs, ws}, []string{self, helperPipeTold, listener.sock, fs, ws})
}

// readPart times the call an agent makes most, a read of a source file
// (16 KiB, its text escaped on every line), through the relay with the
// live hub and through the two pipe copies, in turns: the relay reads
// the result and tells the hub its text, and the hub records it, so what
// a call costs grows with the file where the copies' does not.
func readPart(res *results, n int, ws, fs string, live, listener *helperProc, relayed, copied, told []string) error {
	req, err := readRequest(ws)
	if err != nil {
		return err
	}
	t, cpu, _, err := mcpTimes(n, ws, req, []int{live.pid, listener.pid}, []string{fs, ws}, relayed, copied, told)
	if err != nil {
		return err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	withHub, floor, toldFloor := us(t[1]), us(t[2]), us(t[3])
	res.say("MCP read_text_file, 16 KiB  median %.0f µs direct; through the relay with a live hub added %.0f µs, paired over %d calls; the pipe copy %.0f µs, the telling pipe copy %.0f µs", us(t[0]), withHub, n, floor, toldFloor)
	res.say("  CPU per call: the relay %.0f µs (the hub %.0f µs); the pipe copy %.0f; the telling pipe copy %.0f (its listener %.0f)", cpu[1], cpu[4], cpu[2], cpu[3], cpu[5])
	res.target(figure{Target: targetReadAdded, Value: withHub / floor, Unit: "×", Floor: toldFloor / floor, FloorIs: "pipe copy telling a listener", Runs: n, Info: true})
	res.target(figure{Target: targetReadCPU, Value: (cpu[1] + cpu[4]) / (cpu[3] + cpu[5]), Unit: "×", Floor: 1, FloorIs: "the telling pipe copy and its listener", Runs: n, Info: true})
	return nil
}

// stdioRelay is the command of the stdio relay of the build in dir over
// ws, reporting to the hub at sock ("": no session), in front of the
// filesystem server fs.
func stdioRelay(dir, ws, sock, fs string) []string {
	args := []string{filepath.Join(dir, "swetouch"), "mcp", "--root", ws}
	if sock != "" {
		args = append(args, "--session", sock)
	}
	return append(args, "--", fs, ws)
}

// readFile is the 16 KiB source file readRequest reads, in the workspace.
const readFile = "bench-read.py"

// readRequest writes the 16 KiB source file into ws and is its read.
func readRequest(ws string) (mcp.CallToolRequest, error) {
	file := filepath.Join(ws, readFile)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "read_text_file", map[string]any{"path": file}
	return req, os.WriteFile(file, sourceText(16<<10), 0o644)
}

// sourceText is n bytes of Python-like source: short lines, each a
// newline the JSON of a read escapes, as a source file's are.
func sourceText(n int) []byte {
	var b []byte
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "def price_%d(amount, rate=0.%02d):\n", i, i%100)
		b = fmt.Appendf(b, "    \"\"\"Return amount at rate %d.\"\"\"\n    return round(amount * (1 - rate), 2)\n\n", i)
	}
	return b[:n]
}

// listDirs is the stdio part's call: one whose result is a line.
func listDirs() mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "list_allowed_directories", map[string]any{}
	return req
}

func watchPart(res *results, tmp string) error {
	big := filepath.Join(tmp, "big")
	if err := tree(big, 20000, 100); err != nil {
		return err
	}
	before := rssKB()
	t0 := time.Now()
	// as swetouch run starts: the index of the start (the task's
	// repository; here the tree itself), then the watcher
	base, err := baseline.Index(big)
	if err != nil {
		return err
	}
	copied := time.Since(t0)
	w, err := watch.New(big, watch.From(base))
	if err != nil {
		return err
	}
	ready := time.Since(t0)
	after := rssKB()
	w.Close()
	res.say("watch 20,000 files      ready in %.0f ms (budget 2 s; the index of the start %.0f ms of it); process RSS %.0f MB (%.1f MB more than before; budget 150 MB)",
		float64(ready)/float64(time.Millisecond), float64(copied)/float64(time.Millisecond), float64(after)/1024, float64(after-before)/1024)
	return nil
}

// mcpTimes times n tools/call round trips to the filesystem server
// through each way of starting it (a command line each), alternating, as
// alternate reports them, and gives the CPU per call of each way's own
// process (0 for the first, the server itself), then of each of also's.
func mcpTimes(n int, ws string, req mcp.CallToolRequest, also []int, ways ...[]string) ([]time.Duration, []float64, [][2]float64, error) {
	var clients []*client.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var pids []int
	for i, w := range ways {
		before := childPids()
		c, err := client.NewStdioMCPClient(w[0], os.Environ(), w[1:]...)
		if err != nil {
			return nil, nil, nil, err
		}
		clients = append(clients, c)
		if err := initialize(c, mcp.LATEST_PROTOCOL_VERSION); err != nil {
			return nil, nil, nil, err
		}
		if i == 0 {
			pids = append(pids, 0)
		} else {
			pids = append(pids, newChild(before))
		}
	}
	var m cpuMeter
	m.start(append(pids, also...)...)
	t, err := alternate(n, req, clients...)
	return t, m.perCall(n), m.switchesPerCall(n), err
}

// initialize opens an MCP session on c.
func initialize(c *client.Client, version string) error {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	_, err := c.Initialize(context.Background(), init)
	return err
}

// alternate times n round trips of req through each client, taking turns
// (so all see the machine in the same state), and returns their medians.
func alternate(n int, req mcp.CallToolRequest, clients ...*client.Client) ([]time.Duration, error) {
	return inTurns(n, len(clients), func(k int) (time.Duration, error) {
		t0 := time.Now()
		_, err := clients[k].CallTool(context.Background(), req)
		return time.Since(t0), err
	})
}

// inTurns times n rounds of call, once for each of ways ways per round,
// in an order shuffled each round (seeded, so every run takes the same
// orders): what a way leaves running after its call (a hub recording it)
// then falls on every other way alike, not on the one after it. It
// returns addedTimes of the rounds.
func inTurns(n, ways int, call func(way int) (time.Duration, error)) ([]time.Duration, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	order := make([]int, ways)
	for k := range order {
		order[k] = k
	}
	times := make([][]time.Duration, ways)
	for i := 0; i < n; i++ {
		rng.Shuffle(ways, func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, k := range order {
			d, err := call(k)
			if err != nil {
				return nil, err
			}
			times[k] = append(times[k], d)
		}
	}
	return addedTimes(times), nil
}

// addedTimes is the first way's median, then each other's added time:
// the median of its call less the first way's call in the same round (see
// paired).
func addedTimes(times [][]time.Duration) []time.Duration {
	out := []time.Duration{median(append([]time.Duration(nil), times[0]...))}
	for k := 1; k < len(times); k++ {
		d := make([]time.Duration, len(times[0]))
		for i := range d {
			d[i] = times[k][i] - times[0][i]
		}
		out = append(out, median(d))
	}
	return out
}

// cFloor builds the smallest wrapper that does what the shim's fast path
// must, without a session: a static C program that spawns bash with its
// arguments, waits, and exits with its status. What it adds is what any
// wrapper costs here, the floor of the shim's added time. With ask, it
// also asks a listener first (the socket BENCH_ASK_SOCKET names: one line
// out, one line back) and tells it after (one line, unanswered): the
// least a wrapper that reports to a hub costs.
func cFloor(tmp, bash string, ask bool) (string, error) {
	name := "cfloor"
	if ask {
		name = "cfloor-ask"
	}
	src := filepath.Join(tmp, name, "floor.c")
	os.MkdirAll(filepath.Dir(src), 0o755)
	// vfork, as the shim spawns: posix_spawn's child first sets each of
	// the 64 signals' dispositions, which costs a twentieth of bash here
	prog := `#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv) {
	pid_t pid; int st, hub = -1;
	sigset_t all, orig;
	argv[0] = "bash";
#ifdef ASK
	const char *sock = getenv("BENCH_ASK_SOCKET");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!sock || strlen(sock) >= sizeof a.sun_path) return 125;
	strcpy(a.sun_path, sock);
	hub = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (hub < 0 || connect(hub, (struct sockaddr *)&a, sizeof a) < 0) return 125;
	char c;
	if (write(hub, "b\n", 2) != 2) return 125;
	while (read(hub, &c, 1) == 1 && c != '\n') {
	}
#endif
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &orig);
	pid = vfork();
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &orig, 0);
		execve(` + strconv.Quote(bash) + `, argv, environ);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &orig, 0);
	if (pid < 0 || waitpid(pid, &st, 0) < 0) return 1;
	if (hub >= 0 && write(hub, "e\n", 2) != 2) return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, name, "bash")
	args := []string{src}
	if ask {
		args = append(args, "-DASK")
	}
	if err := ccStatic(bin, args...); err != nil {
		return "", err
	}
	return bin, nil
}

// ccStatic builds bin with cc, optimised and static, from args (sources
// and flags), as the shim's fast path is built.
func ccStatic(bin string, args ...string) error {
	out, err := exec.Command("cc", append([]string{"-O2", "-static", "-o", bin}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cc: %v: %s", err, out)
	}
	return nil
}

// askingWrapper builds the C floor that asks a listener before the
// command and tells it after, and starts the listener it asks (stop ends
// it): the way to run a script through that floor.
func askingWrapper(tmp, bash string) (w way, stop func(), err error) {
	floor, err := cFloor(tmp, bash, true)
	if err != nil {
		return way{}, nil, err
	}
	echo, err := listenerProcess(helperEcho)
	if err != nil {
		return way{}, nil, err
	}
	return way{floor, append(os.Environ(), "BENCH_ASK_SOCKET="+echo.sock)}, echo.stop, nil
}

// askingFloor measures the C floor that also asks a listener, which
// answers every line at once, before the command and tells it after.
func askingFloor(res *results, n int, tmp, ws, bash string, shim paired) error {
	asking, stop, err := askingWrapper(tmp, bash)
	if err != nil {
		return err
	}
	defer stop()
	f := pair(n, ws, bash, asking.shell, asking.env, "true")
	res.say("  floor of a wrapper that asks a hub: the C program asking a listener that answers at once, then telling it, added %.2f ms (%.2f× bash); the shim adds %.2f× that", ms(f.added), float64(f.added)/float64(f.direct), float64(shim.added)/float64(f.added))
	// no target: these pairs run in the hub's own process, which makes its
	// wake-ups cheaper than an agent's process sees them (the sandbox
	// part runs them in one of their own)
	return nil
}

// goFloor builds the smallest Go program that stands in for bash: it only
// execs it. What it adds is the cost of starting any Go binary here.
func goFloor(tmp, bash string) (string, error) {
	src := filepath.Join(tmp, "floor", "main.go")
	os.MkdirAll(filepath.Dir(src), 0o755)
	prog := "package main\n\nimport (\n\t\"os\"\n\t\"syscall\"\n)\n\nfunc main() {\n\tsyscall.Exec(" + strconv.Quote(bash) + ", os.Args, os.Environ())\n}\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, "floor", "bash")
	out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return bin, nil
}

// paired is script timed directly and through the shim, alternating.
type paired struct {
	direct, through time.Duration // the medians
	// added is the median of each run's time through the shim less the
	// direct run just before it: this VM's speed drifts by tens of percent
	// within seconds, which moves the two medians apart by as much as the
	// shim costs, and a pair of runs taken together sees the same speed
	added time.Duration
}

// pair runs script n times directly and n times through the shim,
// alternating.
func pair(n int, dir, bash, shim string, env []string, script string) paired {
	return turns(n, dir, bash, script, way{shim, env})[0]
}

// way is a shell to run a script through, with its environment.
type way struct {
	shell string
	env   []string
}

// turns runs script n times directly and n times through each way, in
// turns (the direct run first in each), and pairs each way's runs with
// the direct run of their turn.
func turns(n int, dir, bash, script string, ways ...way) []paired {
	direct := make([]time.Duration, n)
	through := make([][]time.Duration, len(ways))
	added := make([][]time.Duration, len(ways))
	for i := range n {
		direct[i] = timeRun(dir, bash, os.Environ(), script)
		for k, w := range ways {
			t := timeRun(dir, w.shell, w.env, script)
			through[k] = append(through[k], t)
			added[k] = append(added[k], t-direct[i])
		}
	}
	d := median(direct) // sorts direct: the pairs are taken already
	out := make([]paired, len(ways))
	for k := range ways {
		out[k] = paired{d, median(through[k]), median(added[k])}
	}
	return out
}

func timeRun(dir, shell string, env []string, script string) time.Duration {
	cmd := exec.Command(shell, "-c", script)
	cmd.Dir, cmd.Env = dir, env
	t0 := time.Now()
	cmd.Run()
	return time.Since(t0)
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// tree writes files spread over dirs directories, a git work tree with
// the files committed.
func tree(root string, files, dirs int) error {
	for i := 0; i < files; i++ {
		d := filepath.Join(root, fmt.Sprintf("pkg%03d", i%dirs))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		body := strings.Repeat(fmt.Sprintf("line of file %d with some text\n", i), 20)
		if i%997 == 0 {
			body += "the needle is here\n"
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.py", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "tree"}} {
		c := exec.Command("git", args...)
		c.Dir = root
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v %s", args, err, out)
		}
	}
	return nil
}

func rssKB() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				v, _ := strconv.Atoi(f[1])
				return v
			}
		}
	}
	return 0
}

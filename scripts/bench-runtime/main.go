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
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

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

// readFile is the 16 KiB source file readRequest reads, in the workspace.
const readFile = "bench-read.py"

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

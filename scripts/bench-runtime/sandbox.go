package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/sandbox"
)

// helperPairs runs pair inside a sandbox and prints the added time in
// nanoseconds: the shim measured as a sandboxed agent runs it.
const helperPairs = "__pairs"

func pairsHelper(args []string) {
	n, _ := strconv.Atoi(args[1])
	ws, bash, shim, floor, asking := args[2], args[3], args[4], args[5], args[6]
	p := pair(n, ws, bash, shim, os.Environ(), "true")
	f := pair(n, ws, bash, floor, os.Environ(), "true")
	a := pair(n, ws, bash, asking, os.Environ(), "true")
	fmt.Println(int64(p.direct), int64(p.through), int64(p.added), int64(f.added), int64(a.added))
}

// The targets sandboxPart measures (named once: a skipped part lists
// them as not measured).
const (
	targetShimSandboxed    = "shim added / bash -c true, sandboxed"
	targetShimOverWrapper  = "shim added / asking C wrapper floor, sandboxed"
	targetShimOwnProcess   = "shim added / asking C wrapper floor, own process"
	targetSandboxedStartUp = "sandboxed swetouch run start, added"
)

// sandboxPart measures what the sandbox costs: the shim's added time for
// a command run inside it (against bash inside it), and the start-up of a
// whole swetouch run with the sandbox against one without, paired.
func sandboxPart(res *results, n int, bin, ws string, host *run.Host, env []string) error {
	// with the limits swetouch run gives every sandbox (a control group
	// of its own), as the agent's commands run under them
	r := &sandbox.Runner{Limits: sandbox.DefaultLimits}
	if err := r.Check(); err != nil {
		res.say("sandbox: not measured: %v", err)
		res.notMeasured(err.Error(), targetShimSandboxed, targetShimOverWrapper, targetShimOwnProcess, targetSandboxedStartUp)
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	bash, _ := exec.LookPath("bash")
	floor, err := cFloor(filepath.Dir(ws), bash, false)
	if err != nil {
		return err
	}
	asking, err := cFloor(filepath.Dir(ws), bash, true)
	if err != nil {
		return err
	}
	echo, err := listenerProcess(helperEcho)
	if err != nil {
		return err
	}
	defer echo.stop()
	sock := echo.sock
	helper := func() *exec.Cmd {
		cmd := exec.Command(self, helperPairs, strconv.Itoa(n), ws, bash, filepath.Join(host.ShimDir, "bash"), floor, asking)
		cmd.Env = append(env, "TMPDIR=/tmp", "BENCH_ASK_SOCKET="+sock)
		return cmd
	}
	// the same pairs in a process of their own outside the sandbox, as an
	// unsandboxed agent runs them (the shell part's pairs run in the
	// hub's own process, whose wake-ups then cost less)
	plain := helper()
	outside, err := runPairs(plain, func(w *os.File) { plain.Stdout = w })
	if err != nil {
		return err
	}
	sb, err := r.Command(helper(), sandbox.Spec{Writable: []string{ws}, Dir: ws, Home: os.Getenv("HOME"),
		ReadOnly: append([]string{filepath.Dir(host.Socket), bin, self, filepath.Dir(floor), filepath.Dir(asking), filepath.Dir(sock)}, sandbox.Tools(env, nil)...)})
	if err != nil {
		return err
	}
	inside, err := runPairs(sb, func(w *os.File) { sb.Stdout = w })
	if err != nil {
		return fmt.Errorf("the sandboxed shim bench: %v", err)
	}
	for _, p := range []struct {
		where string
		f     pairsFigures
	}{{"in a process of its own", outside}, {"sandboxed", inside}} {
		f := p.f
		res.say("bash -c true, %s: median %.2f ms; through the shim %.2f ms; added %.2f ms, paired (%.2f× bash)",
			p.where, ms(f.direct), ms(f.through), ms(f.added), f.ratio(f.added))
		res.say("  floors: a static C program that spawns bash and waits added %.2f ms (%.2f× bash); one that also asks a listener before and tells it after, %.2f ms (%.2f× bash); the shim adds %.2f× that",
			ms(f.floor), f.ratio(f.floor), ms(f.asking), f.ratio(f.asking), float64(f.added)/float64(f.asking))
	}
	f := inside
	// 0.5× bash is the shim's own budget (1.2× the asking floor) where
	// that floor adds 0.42× bash: held at the floor's ratio where it adds more
	res.target(figure{Target: targetShimSandboxed, Value: f.ratio(f.added), Unit: "×", Floor: f.ratio(f.asking), FloorIs: "C wrapper asking a listener", Budget: 0.5, Runs: n}.
		rebase(0.5/1.2, f.ratio(f.asking), fmt.Sprintf("the asking C wrapper, %.2f× bash here", f.ratio(f.asking))))
	res.target(figure{Target: targetShimOverWrapper, Value: float64(f.added) / float64(f.asking), Unit: "×", Floor: 1, FloorIs: "C wrapper asking a listener", Budget: 1.2, Runs: n})
	res.target(figure{Target: targetShimOwnProcess, Value: float64(outside.added) / float64(outside.asking), Unit: "×", Floor: 1, FloorIs: "C wrapper asking a listener", Budget: 1.2, Runs: n})

	// a whole run, agent `true`, with and without the sandbox, alternating
	task := filepath.Join("examples", "tasks", "py-discount")
	if _, err := os.Stat(task); err != nil {
		res.say("swetouch run start-up: not measured (run from the repository root): %v", err)
		res.notMeasured("run from the repository root", targetSandboxedStartUp)
		return nil
	}
	runs := max(n/20, 11)
	var with, without, diff []time.Duration
	for i := 0; i < runs; i++ {
		a, err := timeSwetouchRun(bin, task, true)
		if err != nil {
			return err
		}
		b, err := timeSwetouchRun(bin, task, false)
		if err != nil {
			return err
		}
		with, without, diff = append(with, b), append(without, a), append(diff, b-a)
	}
	res.say("swetouch run, agent true, verified   median %.1f ms; sandboxed %.1f ms; added %.1f ms, paired over %d runs (the agent's sandbox and the verifier's)",
		ms(median(without)), ms(median(with)), ms(median(diff)), runs)
	// what a run pays that finds no check remembered (the first on a
	// boot, or after a sandbox bwrap could not make)
	var probe []time.Duration
	for range 11 {
		t0 := time.Now()
		if err := (&sandbox.Runner{Remember: "-"}).Check(); err != nil {
			return err
		}
		probe = append(probe, time.Since(t0))
	}
	res.say("  a run that finds no passing check of bwrap remembered (the first on a boot) runs it first: +%.1f ms more", ms(median(probe)))
	res.target(figure{Target: targetSandboxedStartUp, Value: ms(median(diff)), Unit: "ms", Floor: ms(median(without)), FloorIs: "unsandboxed run", Budget: 50, Runs: runs})
	return nil
}

// pairsFigures are what the pairs helper measured: bash's median, the
// shim's, and the added time of the shim and of the two C floors.
type pairsFigures struct {
	direct, through, added, floor, asking time.Duration
}

func (f pairsFigures) ratio(d time.Duration) float64 { return float64(d) / float64(f.direct) }

// runPairs runs the pairs helper (whose stdout setStdout sets) and reads
// its figures.
func runPairs(cmd interface {
	Start() error
	Wait() error
}, setStdout func(*os.File)) (pairsFigures, error) {
	var f pairsFigures
	pr, pw, err := os.Pipe()
	if err != nil {
		return f, err
	}
	setStdout(pw)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return f, err
	}
	pw.Close()
	out, _ := io.ReadAll(pr)
	pr.Close()
	if err := cmd.Wait(); err != nil {
		return f, err
	}
	var v [5]int64
	if _, err := fmt.Sscan(string(out), &v[0], &v[1], &v[2], &v[3], &v[4]); err != nil {
		return f, fmt.Errorf("the pairs helper said %q: %v", out, err)
	}
	return pairsFigures{time.Duration(v[0]), time.Duration(v[1]), time.Duration(v[2]), time.Duration(v[3]), time.Duration(v[4])}, nil
}

func timeSwetouchRun(bin, task string, noSandbox bool) (time.Duration, error) {
	out, err := os.MkdirTemp("", "swetouch-bench-run-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(out)
	args := []string{"run", "--task", task, "--out", out}
	if noSandbox {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(filepath.Join(bin, "swetouch"), append(args, "--", "true")...)
	t0 := time.Now()
	b, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("swetouch run: %v: %s", err, b)
	}
	return time.Since(t0), nil
}

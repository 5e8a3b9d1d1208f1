package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
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

// sandboxPart measures what the sandbox costs: the shim's added time for
// a command run inside it (against bash inside it), and the start-up of a
// whole swetouch run with the sandbox against one without, paired.
func sandboxPart(res *results, n int, bin, ws string, host *session.Host, env []string) error {
	r := &sandbox.Runner{}
	if err := r.Check(); err != nil {
		res.say("sandbox: not measured: %v", err)
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
	sock, stop, err := listenerProcess(helperEcho)
	if err != nil {
		return err
	}
	defer stop()
	cmd := exec.Command(self, helperPairs, strconv.Itoa(n), ws, bash, filepath.Join(host.ShimDir, "bash"), floor, asking)
	cmd.Env = append(env, "TMPDIR=/tmp", "BENCH_ASK_SOCKET="+sock)
	var out []byte
	sb, err := r.Command(cmd, sandbox.Spec{Writable: []string{ws}, Dir: ws, Home: os.Getenv("HOME"),
		ReadOnly: append([]string{filepath.Dir(host.Socket), bin, self, filepath.Dir(floor), filepath.Dir(asking), filepath.Dir(sock)}, sandbox.Tools(env, nil)...)})
	if err != nil {
		return err
	}
	pr, pw, _ := os.Pipe()
	sb.Stdout = pw
	if err := sb.Start(); err != nil {
		return err
	}
	pw.Close()
	done := make(chan []byte)
	go func() { b := make([]byte, 256); k, _ := pr.Read(b); done <- b[:k] }()
	out = <-done
	if err := sb.Wait(); err != nil {
		return fmt.Errorf("the sandboxed shim bench: %v", err)
	}
	var direct, through, added, floorAdded, askAdded int64
	fmt.Sscan(string(out), &direct, &through, &added, &floorAdded, &askAdded)
	res.say("bash -c true, sandboxed median %.2f ms; through the shim %.2f ms; added %.2f ms, paired (%.2f× bash)",
		ms(time.Duration(direct)), ms(time.Duration(through)), ms(time.Duration(added)), float64(added)/float64(direct))
	res.say("  floor, sandboxed: a static C program that spawns bash and waits added %.2f ms (%.2f× bash)", ms(time.Duration(floorAdded)), float64(floorAdded)/float64(direct))
	res.target(figure{Target: "shim added / bash -c true, sandboxed", Value: float64(added) / float64(direct), Unit: "×", Floor: float64(floorAdded) / float64(direct), FloorIs: "C wrapper", Budget: 0.5, Runs: n})
	// the budget the floor allows: what any wrapper adds here, and a
	// fifth more for the session's round trips
	res.target(figure{Target: "shim added / C wrapper floor, sandboxed", Value: float64(added) / float64(floorAdded), Unit: "×", Floor: 1, FloorIs: "C wrapper", Budget: 1.2, Runs: n})
	res.say("  floor of a wrapper that asks a hub, sandboxed: added %.2f ms (%.2f× bash); the shim adds %.2f× that", ms(time.Duration(askAdded)), float64(askAdded)/float64(direct), float64(added)/float64(askAdded))
	res.target(figure{Target: "shim added / asking C wrapper floor, sandboxed", Value: float64(added) / float64(askAdded), Unit: "×", Floor: 1, FloorIs: "C wrapper asking a listener", Budget: 1.2, Runs: n})

	// a whole run, agent `true`, with and without the sandbox, alternating
	task := filepath.Join("examples", "tasks", "py-discount")
	if _, err := os.Stat(task); err != nil {
		res.say("swetouch run start-up: not measured (run from the repository root): %v", err)
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
	res.target(figure{Target: "sandboxed swetouch run start, added", Value: ms(median(diff)), Unit: "ms", Floor: ms(median(without)), FloorIs: "unsandboxed run", Budget: 50, Runs: runs})
	return nil
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

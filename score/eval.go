package score

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
)

// Agent is one agent an evaluation runs: how to start it on a task.
type Agent struct {
	Name string
	// Command returns the agent's command line and extra environment for
	// a task; scratch is a directory of the trial's own.
	Command func(t *task.Task, scratch string) (args, env []string, err error)
	// Own names the agent's own commands (session.RunConfig.Own)
	Own func(command string) bool
	// Unreached reads the agent's output for its model being out of
	// reach (session.RunConfig.Unreached)
	Unreached func(line []byte) string
	// Observe reads the agent's output for events (nil for none).
	Observe func(ws string, line []byte) []event.Event
	// Visible are the host paths the sandboxed agent reads on a task (a
	// scripted agent's plan); nil for none.
	Visible func(t *task.Task) []string
}

// EvalConfig is a set of paired trials: every task under every condition
// with every agent, Runs times, with the same verifier and budget.
type EvalConfig struct {
	Tasks       []*task.Task
	Records     func(t *task.Task) (*task.Record, error)
	Agents      []Agent
	Conditions  []policy.Condition
	Runs        int
	Concurrency int
	Out         string
	Shim        string
	// Sandbox isolates every trial's agent and tests, as
	// session.RunConfig's does (a nil Runner: none).
	Sandbox sandbox.Setup
	// Hidden are host paths no agent may see besides the tasks and Out
	// (a shared records file).
	Hidden   []string
	Progress io.Writer
	// Bar draws a progress bar under the finished trials' lines, for a
	// terminal; without it every trial is one plain line.
	Bar bool
}

// Eval runs the trials not yet done (a trial with a result.json that was
// not interrupted is done), Concurrency at a time, each in its own
// workspace, and returns how many it ran. Stopping it (ctx) lets running
// trials write their interrupted result; finished ones stay.
func Eval(ctx context.Context, cfg EvalConfig) (int, error) {
	type trial struct {
		agent Agent
		cond  policy.Condition
		t     *task.Task
		run   int
		dir   string
	}
	var todo []trial
	total := 0
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return 0, err
	}
	man, err := openManifest(cfg.Out)
	if err != nil {
		return 0, err
	}
	var redo []string
	for _, a := range cfg.Agents {
		for _, c := range cfg.Conditions {
			for _, t := range cfg.Tasks {
				for r := 0; r < max(cfg.Runs, 1); r++ {
					total++
					dir := filepath.Join(cfg.Out, a.Name, string(c), t.Name, fmt.Sprintf("run-%d", r))
					why := man.why(cfg.Out, dir)
					if why == "" && done(dir) {
						continue
					}
					if why != "not run" && why != "" {
						redo = append(redo, fmt.Sprintf("%s: %s", dir, why))
					}
					todo = append(todo, trial{a, c, t, r, dir})
				}
			}
		}
	}
	for _, r := range redo {
		fmt.Fprintf(orDiscard(cfg.Progress), "swetouch eval: running again %s\n", r)
	}
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].run < todo[j].run }) // whole runs first
	fmt.Fprintf(orDiscard(cfg.Progress), "swetouch eval: %d trials, %d done, %d to run\n", total, total-len(todo), len(todo))
	jobs := make(chan trial)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	ran := 0
	start := time.Now()
	for w := 0; w < max(cfg.Concurrency, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tr := range jobs {
				// a result of an earlier attempt goes first: eval's own is
				// the one this trial writes
				os.RemoveAll(tr.dir)
				res, err := runTrial(ctx, cfg, tr.agent, tr.cond, tr.t, tr.dir)
				if res != nil && res.Reason != "interrupted" {
					if merr := man.add(cfg.Out, tr.dir); merr != nil && err == nil {
						err = merr
					}
				}
				mu.Lock()
				ran++
				line := fmt.Sprintf("[%d/%d] %s %s %s run %d", ran, len(todo), tr.agent.Name, tr.cond, tr.t.Name, tr.run)
				switch {
				case err != nil && ctx.Err() == nil:
					line += ": " + err.Error()
					if firstErr == nil {
						firstErr = err
					}
				case res != nil:
					line += fmt.Sprintf(": resolved=%s", showBool(res.Resolved))
				}
				eta := time.Duration(float64(time.Since(start)) / float64(ran) * float64(len(todo)-ran)).Round(time.Second)
				if cfg.Bar {
					fmt.Fprintf(orDiscard(cfg.Progress), "\r\033[K%s\n%s", line, bar(ran, len(todo), eta))
				} else {
					fmt.Fprintf(orDiscard(cfg.Progress), "%s (eta %s)\n", line, eta)
				}
				mu.Unlock()
			}
		}()
	}
	for _, tr := range todo {
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- tr:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if cfg.Bar && ran > 0 {
		fmt.Fprintln(orDiscard(cfg.Progress))
	}
	if ctx.Err() != nil {
		return ran, ctx.Err()
	}
	return ran, firstErr
}

func runTrial(ctx context.Context, cfg EvalConfig, a Agent, c policy.Condition, t *task.Task, dir string) (*session.RunResult, error) {
	scratch, err := os.MkdirTemp("", "swetouch-trial-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	args, env, err := a.Command(t, scratch)
	if err != nil {
		return nil, err
	}
	rc := session.RunConfig{Task: t, Condition: c, Out: dir, Agent: args, Env: env, AgentName: a.Name, Shim: cfg.Shim, Observe: a.Observe, Own: a.Own, Unreached: a.Unreached,
		Sandbox: cfg.Sandbox, Scratch: []string{scratch}, Hidden: hidden(cfg)}
	if a.Visible != nil {
		rc.Visible = a.Visible(t)
	}
	if cfg.Records != nil {
		if rc.Record, err = cfg.Records(t); err != nil {
			return nil, err
		}
	}
	res, err := session.Run(ctx, rc)
	if errors.Is(err, session.ErrAgentStart) || errors.Is(err, session.ErrSetup) {
		err = nil // a result, resolved null with the reason
	}
	return res, err
}

// hidden is what a trial's agent must not see: the whole results folder
// (other trials' results), every task (their tests and solutions), and
// what the caller names.
func hidden(cfg EvalConfig) []string {
	out := append([]string{cfg.Out}, cfg.Hidden...)
	for _, t := range cfg.Tasks {
		out = append(out, t.Dir)
	}
	return out
}

// done reports whether a trial finished (interrupted trials run again).
func done(dir string) bool {
	trials, err := Load(dir)
	return err == nil && len(trials) == 1 && trials[0].Result.Reason != "interrupted"
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func showBool(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

// bar is a one-line progress bar: done of total, the share, the ETA.
func bar(done, total int, eta time.Duration) string {
	const width = 30
	n := width * done / max(total, 1)
	return fmt.Sprintf("[%s%s] %d/%d %3.0f%% eta %s", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total, 100*float64(done)/float64(max(total, 1)), eta)
}

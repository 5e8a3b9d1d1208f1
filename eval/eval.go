package eval

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

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// Agent is one agent an evaluation runs: how to start it on a task.
type Agent struct {
	Name string
	// Start is the agent's invocation on a task: scratch is a directory
	// of the trial's own; modelURL is the endpoint to point it at ("" for
	// the one it was configured with): a recorder's, with Config.Upstream.
	Start func(t *task.Task, scratch, modelURL string) (agents.Invocation, error)
	// Probe asks whether the agent's model endpoint can be reached
	// before each trial (run.Config.Probe; nil: not asked).
	Probe func(ctx context.Context) error
}

// Recorder is a started recorder of one trial's model traffic.
type Recorder interface {
	URL() string
	Usage() *result.ModelUsage
	Close() error
}

// Config is a set of paired trials: every task under every condition
// with every agent, Runs times, with the same verifier and budget.
type Config struct {
	Tasks   []*task.Task
	Records func(t *task.Task) (*task.Record, error)
	// Conversation is a multi-turn task's conversation (its user and
	// opening), nil for a single-turn task; nil: every task is one.
	// ClearCorrect is the same under the clear-correct condition (its
	// user precise and correct every turn); a task with none has no
	// trials under it.
	Conversation, ClearCorrect func(t *task.Task) (*run.Conversation, error)
	// Upstream, when set, starts a recorder in front of the agents'
	// provider for one trial, writing its cassette into the trial's
	// folder (run --model-upstream, per trial).
	Upstream func(dir string, steps *run.StepBudget) (Recorder, error)
	// StepLimit ends each trial's agent after that many model calls
	// (run.StepBudget; 0: none), counted by the trial's recorder.
	StepLimit int
	// PaperSteps: where StepLimit is 0, a trial of a released record runs
	// with the paper's budget for its benchmark (Record.PaperStepLimit).
	PaperSteps  bool
	Agents      []Agent
	Conditions  []policy.Condition
	Runs        int
	Concurrency int
	// RetryNull is how many times a trial that ended with no verdict (the
	// machine's: an agent that could not start, a sandbox that could not
	// be made) runs again before its null stands.
	RetryNull int
	Out       string
	Shim      string
	// Sandbox isolates every trial's agent and tests, as
	// run.Config's does (a nil Runner: none).
	Sandbox sandbox.Setup
	// Verify are added to every trial's verifier runs (a budget).
	Verify []task.VerifyOption
	// ModelURL is the agents' model endpoint (--model-url), each trial's
	// recorder's when Upstream is set: all a sandboxed agent's network
	// reaches, unless HostNetwork gives it the host's.
	ModelURL    string
	HostNetwork bool
	// AgentTimeout is each trial's limit on its agent, as
	// run.Config's (0: the task's, else an hour).
	AgentTimeout time.Duration
	// Hidden are host paths no agent may see besides the tasks and Out
	// (a shared records file).
	Hidden   []string
	Progress io.Writer
	// Schedule is when the user's rounds come; a fraction schedule's step
	// count is each trial's paired vanilla run's (Conditions must hold
	// vanilla).
	Schedule policy.Schedule
	// Delivery and CoEditTrigger are each trial's (run.Config's).
	Delivery      policy.Delivery
	CoEditTrigger string
	// UserModel writes the user's messages (run.Config.UserModel);
	// each trial records its calls in its own folder.
	UserModel user.Writer
	// Bar draws a progress bar under the finished trials' lines, for a
	// terminal; without it every trial is one plain line.
	Bar bool
	// Elsewhere, when set, runs each trial instead of this process (in
	// its task's container): Agents then only name them, and Sandbox,
	// Upstream and the rest are the trial's own run's business.
	Elsewhere Elsewhere
}

// Run runs the trials not yet done (a trial with a result.json that was
// not interrupted is done), Concurrency at a time, each in its own
// workspace, and returns how many it ran. Stopping it (ctx) lets running
// trials write their interrupted result; finished ones stay.
func Run(ctx context.Context, cfg Config) (int, error) {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return 0, err
	}
	man, err := openManifest(cfg.Out)
	if err != nil {
		return 0, err
	}
	todo, total, redo := plan(cfg, man)
	for _, r := range redo {
		fmt.Fprintf(orDiscard(cfg.Progress), "swetouch eval: running again %s\n", r)
	}
	fmt.Fprintf(orDiscard(cfg.Progress), "swetouch eval: %d trials, %d done, %d to run\n", total, total-len(todo), len(todo))
	e := &evaluation{cfg: cfg, man: man, todo: len(todo), start: time.Now()}
	for _, phase := range phases(todo, cfg.Schedule) {
		e.runAll(ctx, phase)
	}
	if cfg.Bar && e.ran > 0 {
		fmt.Fprintln(orDiscard(cfg.Progress))
	}
	if ctx.Err() != nil {
		return e.ran, ctx.Err()
	}
	return e.ran, e.firstErr
}

// trial is one agent × condition × task × run of an eval.
type trial struct {
	agent Agent
	cond  policy.Condition
	t     *task.Task
	run   int
	dir   string
}

// vanilla is the folder of the trial's vanilla pair.
func (tr trial) vanilla(out string) string {
	return filepath.Join(out, tr.agent.Name, string(policy.Vanilla), tr.t.Name, fmt.Sprintf("run-%d", tr.run))
}

// plan lists the trials not yet done, whole runs first, with the number
// of trials in all and why finished-looking ones run again; a condition
// that needs a record is not planned for a task without one.
func plan(cfg Config, man *manifest) (todo []trial, total int, redo []string) {
	skip := unrecorded(cfg)
	for _, a := range cfg.Agents {
		for _, c := range cfg.Conditions {
			for _, t := range cfg.Tasks {
				if skipped(skip, c, t.Name) {
					continue
				}
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
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].run < todo[j].run }) // whole runs first
	return todo, total, redo
}

// phases orders the trials: a fraction schedule takes S from each trial's
// vanilla pair, so the vanilla trials all run first; else one phase.
func phases(todo []trial, s policy.Schedule) [][]trial {
	if s.Kind != "fraction" {
		return [][]trial{todo}
	}
	var van, rest []trial
	for _, tr := range todo {
		if tr.cond == policy.Vanilla {
			van = append(van, tr)
		} else {
			rest = append(rest, tr)
		}
	}
	return [][]trial{van, rest}
}

// evaluation is the state the workers of one eval share.
type evaluation struct {
	cfg      Config
	man      *manifest
	todo     int
	start    time.Time
	mu       sync.Mutex
	ran      int
	firstErr error
}

// runAll runs trials, Concurrency at a time, until done or ctx ends.
func (e *evaluation) runAll(ctx context.Context, trials []trial) {
	jobs := make(chan trial)
	var wg sync.WaitGroup
	for w := 0; w < max(e.cfg.Concurrency, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tr := range jobs {
				e.one(ctx, tr)
			}
		}()
	}
	for _, tr := range trials {
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
}

// one runs a trial, records it in the manifest and reports it.
func (e *evaluation) one(ctx context.Context, tr trial) {
	res, err := e.attempts(ctx, tr)
	if res != nil && res.Reason != "interrupted" {
		if merr := e.man.add(e.cfg.Out, tr.dir); merr != nil && err == nil {
			err = merr
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ran++
	line := fmt.Sprintf("[%d/%d] %s %s %s run %d", e.ran, e.todo, tr.agent.Name, tr.cond, tr.t.Name, tr.run)
	switch {
	case err != nil && ctx.Err() == nil:
		line += ": " + err.Error()
		if e.firstErr == nil {
			e.firstErr = err
		}
	case res != nil:
		line += fmt.Sprintf(": resolved=%s", result.ShowResolved(res.Resolved))
	}
	eta := time.Duration(float64(time.Since(e.start)) / float64(e.ran) * float64(e.todo-e.ran)).Round(time.Second)
	if e.cfg.Bar {
		fmt.Fprintf(orDiscard(e.cfg.Progress), "\r\033[K%s\n%s", line, bar(e.ran, e.todo, eta))
	} else {
		fmt.Fprintf(orDiscard(e.cfg.Progress), "%s (eta %s)\n", line, eta)
	}
}

// attempts runs a trial, and again while it ends with no verdict and
// RetryNull allows: a null is never the agent's doing (agent-caused
// failures are false), so another attempt may give the verdict a score
// would otherwise leave out. Each null attempt's folder is kept beside
// the trial as RUN.null-K, its result renamed so no score reads it.
func (e *evaluation) attempts(ctx context.Context, tr trial) (*result.Run, error) {
	var reasons []string
	for k := 1; ; k++ {
		// a result of an earlier attempt goes first: eval's own is the
		// one this trial writes
		os.RemoveAll(tr.dir)
		res, err := runTrial(ctx, e.cfg, tr.agent, tr.cond, tr.t, tr.dir, tr.vanilla(e.cfg.Out))
		null := err == nil && res != nil && res.Resolved == nil && res.Reason != "interrupted" && ctx.Err() == nil
		if null && k <= e.cfg.RetryNull {
			kept := fmt.Sprintf("%s.null-%d", tr.dir, k)
			os.RemoveAll(kept)
			if os.Rename(tr.dir, kept) == nil {
				os.Rename(filepath.Join(kept, result.File), filepath.Join(kept, "null-"+result.File))
				reasons = append(reasons, res.Reason)
				fmt.Fprintf(orDiscard(e.cfg.Progress), "swetouch eval: %s ended with no verdict (%s); running it again (%d of %d)\n", tr.dir, res.Reason, k, e.cfg.RetryNull)
				continue
			}
		}
		if len(reasons) > 0 && res != nil && res.Reason != "interrupted" {
			res.NullRetries = reasons
			if werr := res.Write(filepath.Join(tr.dir, result.File)); werr != nil && err == nil {
				err = werr
			}
		}
		return res, err
	}
}

// runTrial runs one trial into dir; vanilla is its vanilla pair's folder,
// where a fraction schedule takes its step count from.
func runTrial(ctx context.Context, cfg Config, a Agent, c policy.Condition, t *task.Task, dir, vanilla string) (*result.Run, error) {
	sched := cfg.Schedule
	if !c.Acts() {
		sched = policy.Schedule{} // the user never acts
	} else if sched.Kind == "fraction" {
		pair, err := result.Read(filepath.Join(vanilla, result.File))
		if err != nil || pair.Steps == 0 || pair.Reason == "interrupted" {
			return nil, fmt.Errorf("--schedule fraction: no finished vanilla run in %s to take the step count from", vanilla)
		}
		sched.Steps = pair.Steps
	}
	if cfg.Elsewhere != nil {
		s := Spec{Agent: a.Name, Condition: c, Task: t, Dir: dir}
		if sched.Kind == "fraction" {
			s.Steps = sched.Steps
		}
		return cfg.Elsewhere(ctx, s)
	}
	scratch, err := os.MkdirTemp("", "swetouch-trial-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	modelURL := cfg.ModelURL
	var usage func() *result.ModelUsage
	var rec *task.Record
	if cfg.Records != nil {
		if rec, err = cfg.Records(t); err != nil {
			return nil, err
		}
	}
	limit := cfg.StepLimit
	if limit == 0 && cfg.PaperSteps && rec != nil {
		limit = rec.PaperStepLimit()
	}
	steps := run.NewStepBudget(limit)
	if cfg.Upstream != nil {
		// a recorder of the trial's own, its cassette in the trial's folder
		rec, err := cfg.Upstream(dir, steps)
		if err != nil {
			return nil, err
		}
		defer rec.Close()
		modelURL, usage = rec.URL(), rec.Usage
	}
	inv, err := a.Start(t, scratch, modelURL)
	if err != nil {
		return nil, err
	}
	inv.Name = a.Name
	rc := run.Config{Steps: steps, Task: t, Condition: c, Schedule: sched, Delivery: cfg.Delivery, CoEditTrigger: cfg.CoEditTrigger, UserModel: cfg.UserModel, Out: dir, Agent: inv, Shim: cfg.Shim, ModelUsage: usage,
		Sandbox: cfg.Sandbox, Scratch: []string{scratch}, Hidden: hidden(cfg), Verify: cfg.Verify, ModelURL: modelURL, HostNetwork: cfg.HostNetwork, AgentTimeout: cfg.AgentTimeout}
	if cfg.Upstream == nil {
		rc.Probe = a.Probe // a recorder of the trial's own is local and up
	}
	rc.Record = rec
	if conv := cfg.Conversation; conv != nil {
		if c == policy.ClearCorrect {
			if conv = cfg.ClearCorrect; conv == nil {
				return nil, fmt.Errorf("condition clear-correct: no conversation for it (Config.ClearCorrect)")
			}
		}
		if rc.Conversation, err = conv(t); err != nil {
			return nil, err
		}
	}
	res, err := run.Trial(ctx, rc)
	if errors.Is(err, run.ErrAgentStart) || errors.Is(err, run.ErrSetup) {
		err = nil // a result, resolved null with the reason
	}
	return res, err
}

// hidden is what a trial's agent must not see: the whole results folder
// (other trials' results), every task (their tests and solutions), and
// what the caller names.
func hidden(cfg Config) []string {
	out := append([]string{cfg.Out}, cfg.Hidden...)
	for _, t := range cfg.Tasks {
		out = append(out, t.Dir)
	}
	return out
}

// done reports whether a trial finished (interrupted trials run again).
func done(dir string) bool {
	r, err := result.Read(filepath.Join(dir, result.File))
	return err == nil && r.Reason != "interrupted"
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// bar is a one-line progress bar: done of total, the share, the ETA.
func bar(done, total int, eta time.Duration) string {
	const width = 30
	n := width * done / max(total, 1)
	return fmt.Sprintf("[%s%s] %d/%d %3.0f%% eta %s", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total, 100*float64(done)/float64(max(total, 1)), eta)
}

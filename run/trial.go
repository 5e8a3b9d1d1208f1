package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/safefile"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/trajectory"
	"github.com/swetouch/swetouch/user"
)

// Trial prepares a fresh workspace (a copy of the task's repository),
// starts the hub, the watcher and the shims, runs the agent turn after
// turn, runs the verifier, and writes trajectory.jsonl and result.json to
// cfg.Out. Evaluation data (the record, the tests, the solution) stays
// outside the workspace and the agent's environment. When ctx is cancelled
// (Ctrl-C) the agent is stopped, the verifier skipped, and both files are
// still written.
func Trial(ctx context.Context, cfg Config) (*result.Run, error) {
	tr := &trial{cfg: cfg, start: time.Now()}
	defer tr.cleanUp()
	if res, err, done := tr.begin(ctx); done {
		return res, err
	}
	if res, err, done := tr.setUp(); done {
		return res, err
	}
	turn, ended, err := tr.converse(ctx)
	if err != nil {
		return tr.res, err
	}
	return tr.finish(ctx, turn, ended)
}

// trial is one run of Trial, phase by phase: begin (the checks and the
// result it will write), setUp (workspace, files, host), converse (the
// agent's turns), finish (the verdict, the audit, result.json).
type trial struct {
	cfg       Config
	start     time.Time
	res       *result.Run
	ws        string
	host      *Host
	closed    bool // the host is closed with a note of why
	talk      Talker
	userModel user.Writer
	alog      *agentLog
	limit     time.Duration
	undo      []func() // run last first, as defers are
}

// later runs f when the trial is over, as a defer in Trial would.
func (tr *trial) later(f func()) { tr.undo = append(tr.undo, f) }

func (tr *trial) cleanUp() {
	for i := len(tr.undo) - 1; i >= 0; i-- {
		tr.undo[i]()
	}
}

// closeHost closes the host with why the run ended.
func (tr *trial) closeHost(note string) {
	tr.closed = true
	tr.host.Close(note)
}

// begin checks the configuration and the sandbox, and asks whether the
// agent's model can be reached; done when the trial ends there.
func (tr *trial) begin(ctx context.Context) (*result.Run, error, bool) {
	cfg := &tr.cfg
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if err := checkCondition(*cfg); err != nil {
		return nil, err, true
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err, true
	}
	res := &result.Run{Task: cfg.Task.Name, Condition: orString(recordless(*cfg), string(policy.Vanilla)), Agent: cfg.Agent.Argv, AgentName: cfg.Agent.Name, Interventions: []event.Attempt{}, Sandbox: sandbox.None}
	tr.res = res
	if cfg.Sandbox.Runner != nil {
		if err := cfg.Sandbox.Runner.Check(); err != nil {
			return nil, err, true
		}
		res.Sandbox = sandbox.Bwrap
		n, err := agentNetwork(*cfg)
		if err != nil {
			return nil, err, true
		}
		res.Network = n.Label()
	}
	res.ShellsUnseen = sandbox.UnseenShells(cfg.Sandbox.Runner != nil)
	if res.AgentName == "" && len(cfg.Agent.Argv) > 0 {
		res.AgentName = filepath.Base(cfg.Agent.Argv[0])
	}
	if done, err := probeFailed(ctx, *cfg, res, tr.start); done {
		return res, err, true
	}
	return nil, nil, false
}

// setUp makes the workspace, the trajectory, the user model's tape, the
// conversation's user and the host; done when the trial ends there.
func (tr *trial) setUp() (*result.Run, error, bool) {
	res := tr.res
	// in place, the task's start becomes a copy of the checkout: the
	// later phases read it from tr.cfg
	ws, base, made, done, err := prepareWorkspace(&tr.cfg)
	cfg := tr.cfg
	if err != nil {
		return res, setupFailed(cfg.Out, res, tr.start, fmt.Errorf("the workspace: %w", err)), true
	}
	tr.ws = ws
	tr.later(done)
	if cfg.KeepWorkspace || cfg.InPlace != "" {
		res.Workspace = ws
	}
	f, err := os.Create(filepath.Join(cfg.Out, "trajectory.jsonl"))
	if err != nil {
		return nil, err, true
	}
	tr.later(func() { f.Close() })
	tr.userModel = cfg.UserModel
	if chat, ok := tr.userModel.(*user.Chat); ok && chat.Record == nil {
		tape, err := os.Create(filepath.Join(cfg.Out, UserModelLog))
		if err != nil {
			return nil, err, true
		}
		tr.later(func() { tape.Close() })
		tr.userModel = &user.Chat{URL: chat.URL, Model: chat.Model, Key: chat.Key, Client: chat.Client, Record: tape}
	}
	if cfg.Conversation != nil {
		tr.talk = cfg.Conversation.User(cfg.Task, ws, cfg.Out)
		tr.later(func() { tr.talk.Close() })
	}
	owned := append(cfg.Scratch[:len(cfg.Scratch):len(cfg.Scratch)], made...)
	var selfCheck func(context.Context) (string, error)
	if cfg.SelfCheck != nil {
		selfCheck = func(ctx context.Context) (string, error) { return cfg.SelfCheck(ctx, ws) }
	}
	host, err := StartHost(HostConfig{RequireToken: cfg.Sandbox.Runner != nil, SelfCheck: selfCheck, Root: ws, Baseline: base, Shim: cfg.Shim, Clock: cfg.Clock, Owned: owned, Own: cfg.Agent.Own, OnEvent: cfg.OnEvent,
		Users:      userKinds(cfg.Record, user.Options{Condition: cfg.Condition, Match: cfg.Match, Schedule: cfg.Schedule, Delivery: cfg.Delivery, CoEditTrigger: cfg.CoEditTrigger}, tr.userModel, cfg.Task.Instruction, tr.talk),
		Trajectory: f, Header: trajectory.Header{Task: cfg.Task.Name, Agent: strings.Join(cfg.Agent.Argv, " "), Source: "swetouch run", Root: ws, Condition: recordless(cfg)}})
	if err != nil {
		return res, setupFailed(cfg.Out, res, tr.start, fmt.Errorf("the session hub: %w", err)), true
	}
	tr.host = host
	// the trial's own host uid, for the sandboxes of its agent's turns
	tr.later(trialUser(&tr.cfg.Sandbox, host, cfg.Agent.CallsBack || cfg.SelfCheck != nil))
	tr.later(func() {
		if !tr.closed {
			host.Close("swetouch run failed")
		}
	})
	if cfg.Record != nil {
		res.Instance, res.Condition, res.Match = cfg.Record.InstanceID, host.Condition, host.Match
		if res.Delivery = string(cfg.Delivery); res.Delivery == "" {
			res.Delivery = string(policy.Always)
		}
		switch cfg.Schedule.Kind {
		case "fraction":
			res.Schedule = fmt.Sprintf("fraction %d", cfg.Schedule.Steps)
		case "after":
			res.Schedule = fmt.Sprintf("after %d", cfg.Schedule.N)
		}
	}
	res.Timings.Setup = time.Since(tr.start).Seconds()
	return nil, nil, false
}

// converse runs the agent, turn after turn while its conversation goes
// on, within its time limit; ended says why a conversation ended before
// its user ended it. An error is an agent that could not start, its
// result written.
func (tr *trial) converse(ctx context.Context) (agentTurn, string, error) {
	cfg, res, hub := tr.cfg, tr.res, tr.host.Hub
	agentStart := time.Now()
	alog, err := openAgentLog(cfg.Out)
	if err != nil {
		return agentTurn{}, "", err
	}
	tr.alog = alog
	tr.later(func() { alog.Close() })
	conv := cfg.Conversation
	argv, prompt := cfg.Agent.Argv, cfg.Task.Instruction
	if conv != nil {
		prompt = conv.Opening
	}
	var turn agentTurn
	ended := ""
	tr.limit = agentTimeout(cfg)
	actx, cancel := context.WithCancelCause(ctx)
	tr.later(func() { cancel(nil) })
	if tr.limit > 0 {
		res.AgentTimeout = tr.limit.Seconds()
		stop := time.AfterFunc(tr.limit, func() { cancel(errAgentTimeout) })
		tr.later(func() { stop.Stop() })
	}
	if over := cfg.Steps.Exceeded(); over != nil {
		go func() {
			select {
			case <-over:
				cancel(errStepLimit)
			case <-actx.Done():
			}
		}()
	}
	for n := 1; ; n++ {
		if n > 1 && endedBySwetouch(actx) {
			// the time ran out while the user spoke: no next turn
			turn.timedOut = true
			break
		}
		turn = runAgent(actx, cfg, tr.host, tr.ws, alog, argv, prompt)
		if turn.usage != nil {
			if res.Limits == nil {
				res.Limits = &sandbox.Usage{}
			}
			*res.Limits = res.Limits.Add(*turn.usage)
		}
		if turn.startErr != nil {
			return turn, "", tr.couldNotStart(n, turn.startErr)
		}
		if conv == nil || turn.interrupted || turn.timedOut || turn.setup() != nil {
			break
		}
		// the turn's last native edits are the agent's, taken before the
		// user looks
		hub.Idle(context.Background())
		if turn.reader.reply != "" {
			hub.Record(event.Event{Kind: event.Message, Source: "agent", Actor: event.Agent, Text: turn.reader.reply, Note: fmt.Sprintf("turn %d", n)})
		}
		if hub.Status().Steps == 0 && unreached(cfg.Out, cfg.Agent.Unreached) != "" {
			break
		}
		msgs, end, err := hub.TurnEnd(ctx)
		if err != nil || end || len(msgs) == 0 {
			break
		}
		if turn.reader.session == "" && cfg.Agent.Turns != nil {
			// the agent's doing (it crashed, or never said): the
			// conversation ends here and the work is judged as it is
			ended = fmt.Sprintf("turn %d: the agent reported no session to resume", n)
			break
		}
		argv, prompt = turnsOf(cfg.Agent).Resume(cfg.Agent.Argv, turn.reader.session), MessageText(msgs)
	}
	res.AgentExit, res.AgentTimedOut = turn.exit, turn.timedOut && !errors.Is(context.Cause(actx), errStepLimit)
	if errors.Is(context.Cause(actx), errStepLimit) {
		res.Stopped = StoppedStepLimit
		fmt.Fprintf(alog, "swetouch: the agent made more model calls than its %d and was ended\n", cfg.Steps.limit)
	} else if turn.timedOut {
		fmt.Fprintf(alog, "swetouch: the agent ran past its %s and was killed\n", tr.limit)
	}
	res.Timings.Agent = time.Since(agentStart).Seconds()
	return turn, ended, nil
}

// couldNotStart ends a trial whose agent (at turn n) could not start:
// nothing of the agent's ran, so no verdict on it, and a result that
// says why.
func (tr *trial) couldNotStart(n int, startErr error) error {
	res := tr.res
	res.Reason = fmt.Sprintf("%v: %v", ErrAgentStart, startErr)
	if n > 1 {
		res.Reason = fmt.Sprintf("turn %d: %s", n, res.Reason)
	}
	fmt.Fprintf(tr.alog, "swetouch: %s\n", res.Reason)
	tr.closeHost(res.Reason)
	res.AgentExit = -1
	res.Conversation = conversationOf(tr.talk)
	if werr := writeResult(tr.cfg.Out, res, tr.start); werr != nil {
		return werr
	}
	return fmt.Errorf("%w: %v", ErrAgentStart, startErr)
}

// finish takes the agent's last edits and the final diff, then the
// verdict (or why there is none), the audit, and writes result.json.
func (tr *trial) finish(ctx context.Context, turn agentTurn, ended string) (*result.Run, error) {
	cfg, res, hub := tr.cfg, tr.res, tr.host.Hub
	// the agent's last native edits are its own, recorded, and answered
	// by nothing: it cannot see a Counter-Edit any more
	hub.Disarm("agent finished")
	hub.Idle(context.Background())
	diff, _, derr := tr.host.FinalDiff()
	if derr == nil {
		os.WriteFile(filepath.Join(cfg.Out, "final.diff"), diff, 0o644)
	}
	keepAgentFiles(cfg.Agent.Keep, cfg.Out)
	tr.judge(turn)
	if res.Resolved != nil && derr == nil {
		res.Audit = auditRun(cfg, res, tr.ws, diff, tr.talk)
	}
	st := hub.Status()
	res.Steps, res.Interventions = st.Steps, st.Interventions
	res.Applied, res.Delivered = st.Counts()
	res.Unconfirmed = st.Unconfirmed
	if m, ok := tr.userModel.(user.Metered); ok {
		u := m.Usage()
		res.UserModel = &u
	}
	if cfg.ModelUsage != nil {
		res.ModelUsage = cfg.ModelUsage()
	}
	res.ModelCalls, res.StepLimit = cfg.Steps.Calls(), cfg.Steps.Limit()
	res.Conversation = conversationOf(tr.talk)
	if res.Conversation != nil {
		res.Conversation.Ended = ended
		if res.Conversation.Terminated() && (res.Resolved == nil || *res.Resolved) {
			// UserSWE's rule: using the evaluation's material is terminal,
			// and the agent's doing, so never no verdict either
			res.Resolved, res.Reason = new(false), "terminated: the agent used the evaluation's material (UserSWE U14)"
		}
		res.Conversation.VerdictsDisagree = res.TurnVerdictDisagrees()
	}
	if err := writeResult(cfg.Out, res, tr.start); err != nil {
		return res, err
	}
	if turn.interrupted {
		return res, context.Cause(ctx)
	}
	return res, nil
}

// judge runs the verifier, unless the run ended for a reason that is not
// the agent's work: interrupted, a sandbox that never held the agent, an
// agent that never reached its model, a conversation whose tests could
// not run. Each of those is a null verdict with its reason.
func (tr *trial) judge(turn agentTurn) {
	cfg, res, hub := tr.cfg, tr.res, tr.host.Hub
	var setup *sandbox.SetupError
	why := ""
	if hub.Status().Steps == 0 {
		why = unreached(cfg.Out, cfg.Agent.Unreached)
	}
	var failed error
	if cfg.Conversation != nil {
		failed = tr.talk.Failed()
	}
	switch {
	case turn.interrupted:
		res.Reason = "interrupted"
		tr.closeHost("interrupted")
	case errors.As(turn.err, &setup):
		// the agent never ran: not a failure of the agent's
		res.Reason = setup.Error()
		tr.closeHost(res.Reason)
	case why != "":
		// the agent never had a model to act for it
		res.Reason = "the agent never reached its model: " + why
		tr.closeHost(res.Reason)
	case failed != nil:
		// the conversation's tests could not run: not the agent's failure
		res.Reason = failed.Error()
		tr.closeHost(res.Reason)
	default:
		vStart := time.Now()
		v := task.Verify(context.Background(), cfg.Task, tr.ws, verifyOptions(cfg)...)
		res.Timings.Verify = time.Since(vStart).Seconds()
		res.Resolved, res.Reason, res.VerifyLeftOut = v.Resolved, v.Reason, v.LeftOut
		res.Canaries, res.VerifyPathDropped = v.Canaries, v.PathDropped
		res.Listed = v.Listed
		note := "resolved=null: " + v.Reason
		if v.Resolved != nil {
			note = fmt.Sprintf("resolved=%v", *v.Resolved)
		}
		hub.Observe(context.Background(), event.Event{Kind: event.Verify, Source: "harness", Actor: event.Harness, Note: note, Output: trajectory.NewOutput(v.Output)})
		tr.closeHost("done")
	}
}

// keepAgentFiles copies the files the agent's invocation keeps (its own
// trajectory) into the run folder, each under its base name. The agent
// wrote them, so each is read as a workspace file is (a regular file, or
// a link within its folder; never a FIFO, a device, or a link out) and
// only up to maxKept; one it never wrote is passed over.
func keepAgentFiles(files []string, out string) {
	for _, f := range files {
		if st, err := os.Lstat(f); err != nil || st.Size() > maxKept {
			continue
		}
		if b, err := safefile.ReadIn(filepath.Dir(f), filepath.Base(f)); err == nil && len(b) <= maxKept {
			os.WriteFile(filepath.Join(out, filepath.Base(f)), b, 0o644)
		}
	}
}

// maxKept bounds a file the run keeps of the agent's.
const maxKept = 64 << 20

// endedBySwetouch reports whether the agent's context ended at its time
// or step limit (not an interrupt): no next turn starts.
func endedBySwetouch(ctx context.Context) bool {
	c := context.Cause(ctx)
	return errors.Is(c, errAgentTimeout) || errors.Is(c, errStepLimit)
}

// recordless is the condition a run holds without a record's user ("":
// vanilla's, or the record's user's): UserSWE's clear-correct ablation
// needs no record to be itself.
func recordless(cfg Config) string {
	if cfg.Condition == policy.ClearCorrect {
		return string(cfg.Condition)
	}
	return ""
}

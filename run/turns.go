package run

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/user"
)

// Conversation runs a task over several turns (UserSWE): the agent starts
// on the opening; each time it ends a turn (its process exits) the user
// is asked (session.Hub.TurnEnd), and what the user says is the next turn's
// prompt, given to the agent resuming its own session through its real
// user channel (its agents.Turns), until the user ends the conversation.
type Conversation struct {
	// User makes the conversation's user for the run's workspace, which
	// its tests run on; out is the run's folder, where the calls of the
	// models it uses are recorded. t is the run's task, whose Repo is the
	// starting code the tests are checked against: for an in-place run
	// (a task whose code lives in its image), the copy of the checkout's
	// start the run took, which the task as loaded does not have.
	User func(t *task.Task, workspace, out string) Talker
	// Opening is the first turn's prompt, in place of the task's
	// instruction: the same for every agent.
	Opening string
}

// Talker is a conversational user that keeps the conversation for the
// result.
type Talker interface {
	user.Conversational
	// Result is the conversation so far, as result.json keeps it.
	Result() *result.Conversation
	// Failed is why the conversation could not go on (its tests could
	// not run: no verdict on the agent), or nil.
	Failed() error
	// Close ends the user's recordings.
	Close() error
}

// turnReader reads one turn's output for the agent's session and reply.
type turnReader struct {
	turns   *agents.Turns
	session string
	reply   string
}

func (t *turnReader) line(l []byte) {
	if t == nil {
		return
	}
	if s := t.turns.Session(l); s != "" {
		t.session = s
	}
	t.reply = t.turns.Reply(t.reply, l)
}

// MessageText is what the user says in one turn: its messages, one
// paragraph each.
func MessageText(msgs []session.Message) string {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.Text
	}
	return strings.Join(texts, "\n\n")
}

// agentTurn is one run of the agent's process: one turn of a
// conversation, or the whole of a single-turn run.
type agentTurn struct {
	startErr    error // the agent could not start: nothing of it ran
	err         error // what its wait returned
	exit        int
	interrupted bool
	timedOut    bool // killed at the agent's timeout
	usage       *sandbox.Usage
	reader      *turnReader
}

// setup is the sandbox's failure to hold the agent, if that is why it
// ended.
func (t agentTurn) setup() *sandbox.SetupError {
	var s *sandbox.SetupError
	if errors.As(t.err, &s) {
		return s
	}
	return nil
}

// runAgent runs the agent's command line argv with prompt for
// {instruction} until it exits (or ctx ends, which stops it), its output
// copied to the agent log and read for the events the shell cannot see
// and for its session and reply.
func runAgent(ctx context.Context, cfg Config, host *Host, ws string, alog *agentLog, argv []string, prompt string) agentTurn {
	t := agentTurn{exit: -1}
	if cfg.Conversation != nil {
		t.reader = &turnReader{turns: turnsOf(cfg.Agent)}
	}
	cmd := exec.Command(argv[0], subst(argv[1:], prompt, ws)...)
	cmd.Dir = ws
	cmd.Env = append(host.Env(os.Environ()), "PWD="+ws)
	cmd.Env = append(cmd.Env, cfg.Agent.Env...)
	stdout := alog.tee(cfg.Stdout)
	cmd.Stdout, cmd.Stderr = stdout, alog.tee(cfg.Stderr)
	// the streams are copied into agent.log: a process the agent left
	// running with them open must not hold the run after the agent exits
	cmd.WaitDelay = agentOutputGrace
	var observed chan struct{}
	if cfg.Agent.Observe != nil || t.reader != nil {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.startErr = err
			return t
		}
		cmd.Stdout = pw
		observed = make(chan struct{})
		rd := t.reader
		go func() {
			defer close(observed)
			observe(pr, stdout, ws, func(l []byte) []event.Event {
				rd.line(l)
				if cfg.Agent.Observe == nil {
					return nil
				}
				return cfg.Agent.Observe(ws, l)
			}, host.Hub)
		}()
		defer pw.Close()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	proc, err := agentProcess(cfg, cmd, host, ws)
	if err == nil {
		err = proc.Start()
	}
	if err != nil {
		if observed != nil {
			cmd.Stdout.(*os.File).Close()
			<-observed
		}
		t.startErr = err
		return t
	}
	waited := make(chan error, 1)
	go func() { waited <- proc.Wait() }()
	select {
	case t.err = <-waited:
	case <-ctx.Done():
		if endedBySwetouch(ctx) {
			// all of it, at once: nothing it left may go on writing
			// the workspace the verifier is about to copy
			t.timedOut = true
			if sb, ok := proc.process.(*sandbox.Sandboxed); ok {
				sb.Kill()
			}
			syscall.Kill(-proc.cmd.Process.Pid, syscall.SIGKILL)
		} else {
			t.interrupted = true
			syscall.Kill(-proc.cmd.Process.Pid, syscall.SIGTERM)
		}
		t.err = <-waited
	}
	if observed != nil {
		cmd.Stdout.(*os.File).Close()
		<-observed
	}
	t.exit = proc.ExitCode()
	if sb, ok := proc.process.(*sandbox.Sandboxed); ok && sb.Usage() != (sandbox.Usage{}) {
		u := sb.Usage()
		t.usage = &u
	}
	return t
}

// conversationOf is the conversation for the result (nil for one turn).
func conversationOf(t Talker) *result.Conversation {
	if t == nil {
		return nil
	}
	return t.Result()
}

// talker is the conversation's user for the hub (nil for one turn).
func talker(t Talker) user.Conversational {
	if t == nil {
		return nil
	}
	return t
}

// turnsOf is how the agent goes on with its session: its own Turns, or
// the line protocol.
func turnsOf(a agents.Invocation) *agents.Turns {
	if a.Turns != nil {
		return a.Turns
	}
	return agents.LineTurns()
}

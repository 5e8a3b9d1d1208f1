package run

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/session"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/user"
)

// Conversation runs a task over several turns (UserSWE): the agent starts
// on the opening; each time it ends a turn (its process exits) the user
// is asked (session.Hub.TurnEnd), and what the user says is the next turn's
// prompt, given to the agent resuming its own session through its real
// user channel, until the user ends the conversation.
type Conversation struct {
	// User makes the conversation's user for the run's workspace, which
	// its tests run on; out is the run's folder, where the calls of the
	// models it uses are recorded.
	User func(workspace, out string) Talker
	// Opening is the first turn's prompt, in place of the task's
	// instruction: the same for every agent.
	Opening string
	// Resume is the command line of the agent's next turn: the first
	// turn's (with {instruction} still in it, for the user's message)
	// continuing the session the agent reported. nil: the first turn's
	// own, with {session} replaced by the id.
	Resume func(argv []string, session string) []string
	// Session reads a line of the agent's output for the id of its
	// session (nil: the line protocol, {"swetouch_session": ID}).
	Session func(line []byte) string
	// Reply reads a line of the agent's output for its reply to the
	// user, given its reply so far this turn, and returns the reply now
	// (nil: the line protocol, {"swetouch_reply": TEXT}, the last one).
	Reply func(sofar string, line []byte) string
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

// The line protocol of an agent swetouch has no preset for: a line of
// its standard output that is a JSON object naming its session or its
// reply.
const (
	SessionKey = "swetouch_session"
	ReplyKey   = "swetouch_reply"
)

// lineValue is the string under key in a line that is a JSON object.
func lineValue(line []byte, key string) (string, bool) {
	if !strings.Contains(string(line), key) {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return "", false
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return "", false
	}
	return s, true
}

func (c *Conversation) session(line []byte) string {
	if c.Session != nil {
		return c.Session(line)
	}
	s, _ := lineValue(line, SessionKey)
	return s
}

func (c *Conversation) reply(sofar string, line []byte) string {
	if c.Reply != nil {
		return c.Reply(sofar, line)
	}
	if r, ok := lineValue(line, ReplyKey); ok {
		return r
	}
	return sofar
}

func (c *Conversation) resume(argv []string, session string) []string {
	if c.Resume != nil {
		return c.Resume(argv, session)
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "{session}", session)
	}
	return out
}

// turnReader reads one turn's output for the agent's session and reply.
type turnReader struct {
	conv    *Conversation
	session string
	reply   string
}

func (t *turnReader) line(l []byte) {
	if t == nil {
		return
	}
	if s := t.conv.session(l); s != "" {
		t.session = s
	}
	t.reply = t.conv.reply(t.reply, l)
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
		t.reader = &turnReader{conv: cfg.Conversation}
	}
	cmd := exec.Command(argv[0], subst(argv[1:], prompt, ws)...)
	cmd.Dir = ws
	cmd.Env = append(host.Env(os.Environ()), "PWD="+ws)
	cmd.Env = append(cmd.Env, cfg.Env...)
	stdout := alog.tee(cfg.Stdout)
	cmd.Stdout, cmd.Stderr = stdout, alog.tee(cfg.Stderr)
	// the streams are copied into agent.log: a process the agent left
	// running with them open must not hold the run after the agent exits
	cmd.WaitDelay = agentOutputGrace
	var observed chan struct{}
	if cfg.Observe != nil || t.reader != nil {
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
				if cfg.Observe == nil {
					return nil
				}
				return cfg.Observe(ws, l)
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
		if errors.Is(context.Cause(ctx), errAgentTimeout) {
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

package run

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/shim"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/envlist"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// Config is one agent run on one task.
type Config struct {
	Task      *task.Task
	Record    *task.Record // nil: observe only
	Condition policy.Condition
	Match     policy.Match
	// Schedule is when the user's rounds become due (zero: the record's
	// own triggers).
	Schedule policy.Schedule
	// Delivery and CoEditTrigger are the region user's (user.Options):
	// zero is the paper's delivery and the record's Co-Edit trigger.
	Delivery      policy.Delivery
	CoEditTrigger string
	// UserModel, when set, writes the user's messages from what the
	// agent did (user.Contextual); a user.Chat's calls are recorded in
	// the run folder's user-model.jsonl unless it records elsewhere.
	UserModel user.Writer
	// Agent is the agent's invocation: its command line ({instruction},
	// {workspace} and {session} substituted), environment, what it must
	// see, and how its output is read (agents.Agent.Start, or
	// agents.Command for a command line).
	Agent agents.Invocation
	Out   string // where trajectory.jsonl and result.json go
	// Shim is the executable linked as bash and sh in the shim directory;
	// by default this process's own.
	Shim string
	// Stdout and Stderr receive the agent's output (default: discarded;
	// agent.log keeps it either way).
	Stdout, Stderr io.Writer
	// OnEvent, when set, is told every event once recorded (a progress
	// line for each of the agent's actions).
	OnEvent func(event.Event)
	// KeepWorkspace leaves the workspace on disk (its path is in the result).
	KeepWorkspace bool
	// Steps, when set, limits the agent's model calls (StepBudget): its
	// counter is the recorder in front of its model.
	Steps *StepBudget
	// InPlace, when set, is the workspace itself: the run works over
	// this checkout rather than a copy of the task's repository, and its
	// final diff is against the checkout as the run found it
	// (inplacerun.go).
	InPlace string
	Clock   func() time.Time
	// Sandbox isolates the agent and the verifier's tests (a nil Runner:
	// unsandboxed, and result.json says so); both get its Env and see its
	// Visible.
	Sandbox sandbox.Setup
	// ModelURL is the agent's model endpoint: in a sandbox, the one
	// address its network reaches, relayed from the host's loopback (""
	// reaches nothing). HostNetwork gives it the host's network instead.
	ModelURL    string
	HostNetwork bool
	// AgentTimeout is how long the agent may run, all its turns together
	// (0: the task's own, else DefaultAgentTimeout; negative: no limit).
	// Past it the agent's sandbox is killed whole, and the verifier runs
	// on what the workspace holds.
	AgentTimeout time.Duration
	// Visible are host paths the sandboxed agent needs to read besides
	// its invocation's (its install); Scratch are folders of its own it may write (its
	// configuration, a home). Hidden must stay out of its sight besides
	// the task and the output folder (a records file, an eval folder).
	Visible, Scratch, Hidden []string
	// Conversation, when set, runs the task over several turns: its user
	// talks each time the agent ends one (nil: one turn, the task's
	// instruction).
	Conversation *Conversation
	// ModelUsage, when set, says what the agent's model calls cost (a
	// recorder in front of its provider), for the result.
	ModelUsage func() *result.ModelUsage
	// SelfCheck, when set, answers the agent's swetouch-self-check on the
	// workspace (a generator's check of its edit).
	SelfCheck func(ctx context.Context, workspace string) (string, error)
	// Verify are added to every verifier run of the trial's (its
	// verdict, the audit's counterfactuals): a budget, a canary source.
	Verify []task.VerifyOption
	// Probe, when set, asks whether the agent's model can be reached
	// before the run is set up; an error ends it at once, resolved null
	// with the error as its reason (agents.ProbeModel).
	Probe func(ctx context.Context) error
}

// DefaultAgentTimeout is how long an agent may run when neither the run
// nor the task says: an hour, past any real agent's honest run on one
// task.
const DefaultAgentTimeout = time.Hour

// errAgentTimeout is the cause of the agent's context at its timeout.
var errAgentTimeout = errors.New("the agent timed out")

// agentTimeout is the run's limit on its agent (0: none).
func agentTimeout(cfg Config) time.Duration {
	switch {
	case cfg.AgentTimeout < 0:
		return 0
	case cfg.AgentTimeout > 0:
		return cfg.AgentTimeout
	case cfg.Task.AgentTimeout > 0:
		return cfg.Task.AgentTimeout
	}
	return DefaultAgentTimeout
}

// agentOutputGrace is how long after the agent exits its output is still
// read from processes it left behind.
const agentOutputGrace = 5 * time.Second

// setupFailed ends a run that could not be set up before its agent: a
// result without a verdict, saying why, and ErrSetup.
func setupFailed(out string, res *result.Run, start time.Time, why error) error {
	res.Reason = fmt.Sprintf("%v: %v", ErrSetup, why)
	if err := writeResult(out, res, start); err != nil {
		return err
	}
	return fmt.Errorf("%w: %v", ErrSetup, why)
}

// UserModelLog is the run folder's recording of the user model's calls,
// which replay serves back (user.LoadTape).
const UserModelLog = "user-model.jsonl"

// writeResult writes result.json, with the run's total time.
func writeResult(out string, res *result.Run, start time.Time) error {
	res.Timings.Total = time.Since(start).Seconds()
	return res.Write(filepath.Join(out, result.File))
}

// process is a started agent: exec.Cmd, or the same in a sandbox.
type process interface {
	Start() error
	Wait() error
}

// agentProc is the agent's process and how its exit is read.
type agentProc struct {
	process
	cmd *exec.Cmd
}

// ExitCode is the agent's exit code (-1 when killed by a signal, or when
// its sandbox could not be made).
func (p agentProc) ExitCode() int {
	if sb, ok := p.process.(*sandbox.Sandboxed); ok && !sb.Started() {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// agentProcess is cmd as it runs: in a sandbox that holds the workspace,
// the shim and the hub's socket, the agent's own install and scratch
// folders, and none of the evaluation's data, when cfg.Sandbox is set.
func agentProcess(cfg Config, cmd *exec.Cmd, host *Host, ws string) (agentProc, error) {
	if cfg.Sandbox.Runner == nil {
		return agentProc{cmd, cmd}, nil
	}
	if !filepath.IsAbs(cmd.Path) {
		return agentProc{}, fmt.Errorf("%s: %w", cmd.Path, cmd.Err)
	}
	spec := sandbox.Spec{Writable: append([]string{ws}, cfg.Scratch...), Dir: ws,
		ReadOnly: append(append(append([]string{host.private}, cfg.Visible...), cfg.Agent.Visible...), cfg.Sandbox.Visible...),
		Hidden:   append([]string{cfg.Task.Dir, cfg.Out}, cfg.Hidden...)}
	for _, link := range []string{filepath.Join(host.ShimDir, "bash"), filepath.Join(host.tools, SelfCheckCommand)} {
		if exe, err := filepath.EvalSymlinks(link); err == nil && !slices.Contains(spec.ReadOnly, exe) {
			spec.ReadOnly = append(spec.ReadOnly, exe)
		}
	}
	// the shim at /bin/sh and /bin/bash too: agents that start a shell
	// by absolute path pass it
	if exe, err := filepath.EvalSymlinks(filepath.Join(host.ShimDir, "bash")); err == nil {
		spec.Shells = sandbox.Shells{Shim: exe, Real: shim.RealShellDir}
	}
	spec.ReadOnly = append(spec.ReadOnly, sandbox.Install(cmd.Path)...)
	// a file the agent is given on its command line (a plan, a
	// configuration) is its own to read, unless it is evaluation data,
	// which the sandbox then refuses to show
	for _, a := range cmd.Args[1:] {
		if !filepath.IsAbs(a) || sandbox.Under(a, spec.Writable) {
			continue
		}
		// files only: a directory named on the command line (`find /`)
		// would show everything under it; --visible names one on purpose
		if info, err := os.Stat(a); err == nil && info.Mode().IsRegular() {
			spec.ReadOnly = append(spec.ReadOnly, filepath.Clean(a))
		}
	}
	spec.ReadOnly = append(spec.ReadOnly, sandbox.Tools(cmd.Env, nil)...)
	spec.Home = envlist.Value(cmd.Env, "HOME")
	spec.User, spec.SharedUID, spec.Over = cfg.Sandbox.User, cfg.Sandbox.SharedUID, cfg.Sandbox.Over
	net, err := agentNetwork(cfg)
	if err != nil {
		return agentProc{}, err
	}
	spec.Network = net
	// the host's TMPDIR is not there; the sandbox's /tmp is its own
	cmd.Env = append(append(cmd.Env, cfg.Sandbox.Env...), "TMPDIR=/tmp")
	sb, err := cfg.Sandbox.Runner.Command(cmd, spec)
	if err != nil {
		return agentProc{}, err
	}
	return agentProc{sb, sb.Cmd}, nil
}

// agentNetwork is what the sandboxed agent reaches of the network: its
// model endpoint alone, or the host's network when the run asks for it.
func agentNetwork(cfg Config) (sandbox.Network, error) {
	if cfg.HostNetwork {
		return sandbox.Network{Host: true}, nil
	}
	return sandbox.ModelNetwork(cfg.ModelURL)
}

// observe copies the agent's output through and hands each line to fn.
// An event with a command and no kind is a command the agent ran outside
// the shim (Codex runs /bin/bash itself): it is classified as if the shim
// had run it, after the fact.
func observe(r io.ReadCloser, out io.Writer, ws string, fn func([]byte) []event.Event, hub *session.Hub) {
	defer r.Close()
	ctx := context.Background()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			out.Write(line)
			for _, ev := range fn(line) {
				if ev.Kind != "" || ev.Command == "" {
					hub.Observe(ctx, ev)
					continue
				}
				end := session.End{}
				if ev.Exit != nil {
					end.Exit = *ev.Exit
				}
				if ev.Output != nil {
					end.Output = ev.Output.Text
				}
				if id, err := hub.Begin(ctx, session.Begin{Command: ev.Command, Cwd: ws, Source: ev.Source}); err == nil {
					hub.End(ctx, id, end)
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// nativeSettle is how long the files must stay unchanged before a native
// edit is taken outside a command.
const nativeSettle = 50 * time.Millisecond

// settle waits until changed has been quiet for d; false when ctx ends.
func settle(ctx context.Context, changed <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-changed:
			t.Reset(d)
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// Workspace makes a fresh git-initialised copy of repo in a new temporary
// directory and returns its path.
func Workspace(repo string) (string, error) {
	ws, err := os.MkdirTemp("", "swetouch-ws-")
	if err != nil {
		return "", err
	}
	if _, err := task.CopyRegular(repo, ws); err != nil {
		os.RemoveAll(ws)
		return "", err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=swetouch", "-c", "user.email=swetouch@localhost", "commit", "-q", "--allow-empty", "-m", "task start"}} {
		c := exec.Command("git", args...)
		c.Dir = ws
		// a fixed date: the same task gives the same commit, so runs
		// (and what an agent is shown of the history) are comparable
		c.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z")
		if out, err := c.CombinedOutput(); err != nil {
			os.RemoveAll(ws)
			return "", fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return ws, nil
}

// shims makes the directory that goes first on the agent's PATH: bash and
// sh link to the shim executable: exe, else swetouch-shim beside this
// executable (the small build, quick to start), else this executable.
func shims(private, exe string) (string, error) {
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return "", err
		}
		exe = self
		if slim := filepath.Join(filepath.Dir(self), "swetouch-shim"); isExecutable(slim) {
			exe = slim
		}
	}
	dir := filepath.Join(private, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, n := range []string{"bash", "sh"} {
		if err := os.Symlink(exe, filepath.Join(dir, n)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// agentEnv is the agent's environment: this process's, minus swetouch's
// own settings, plus the shim on PATH, the hub's socket and the workspace
// (for the relays the agent starts). Nothing in it says where the
// evaluation data is.
func agentEnv(env []string, shimDir, sock, ws string) []string {
	var out []string
	path := ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SWETOUCH_"), k == "SHELL", k == "CLAUDE_CODE_SHELL", k == "PWD", k == "OLDPWD":
			continue
		case k == "PATH":
			path = v
			continue
		}
		out = append(out, kv)
	}
	bash := filepath.Join(shimDir, "bash")
	return append(out, "PATH="+shimDir+string(os.PathListSeparator)+path, "SHELL="+bash, "CLAUDE_CODE_SHELL="+bash,
		"SWETOUCH_SOCKET="+sock, "SWETOUCH_SHIM_DIR="+shimDir, "SWETOUCH_WORKSPACE="+ws)
}

func subst(args []string, instruction, ws string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		// {session} is left for a conversation's next turns; the first
		// has none
		out[i] = strings.NewReplacer("{instruction}", instruction, "{workspace}", ws, "{session}", "").Replace(a)
	}
	return out
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// userKinds are a run's kinds of user, in the order they are made: the
// record's region user, a model writing its messages, the conversation
// (each where the run has one).
func userKinds(rec *task.Record, o user.Options, w user.Writer, instruction string, talk Talker) []user.Kind {
	var kinds []user.Kind
	if rec != nil {
		kinds = append(kinds, user.RegionKind{Record: rec, Options: o})
		if w != nil {
			kinds = append(kinds, user.ContextualKind{Writer: w, Task: instruction})
		}
	}
	if talk != nil {
		kinds = append(kinds, user.ConversationKind{Talker: talk})
	}
	return kinds
}

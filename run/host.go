package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swetouch/swetouch/session"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/baseline"
	"github.com/swetouch/swetouch/internal/rawfd"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/watch"
)

// HostConfig is a hub to start over a workspace.
type HostConfig struct {
	// Root is the workspace. swetouch run hands a fresh copy; the in-place
	// relays (swetouch acp and mcp with --records) the directory the agent
	// already works in.
	Root string
	// Users are the run's kinds of user, in order (user.Build): none to
	// observe and record only.
	Users []user.Kind
	// Trajectory receives the recorded events (nil: none are kept).
	Trajectory io.Writer
	Header     trajectory.Header
	// Shim is the executable linked as bash and sh in the shim directory;
	// by default this process's own.
	Shim string
	// Ignore are directories swetouch writes to (its --out) that the
	// watcher must not take for the agent's edits when they lie inside
	// Root.
	Ignore []string
	// Baseline is the workspace as the run began, kept where the agent
	// cannot write (swetouch run: the task's own repository, which the
	// workspace is a copy of). Without one, Start copies Root first.
	Baseline *baseline.Tree
	// Owned are folders this run made (the workspace) that the next run
	// removes if this one is killed before it can.
	Owned []string
	// RequireToken has the hub refuse a connection that does not open
	// with the session's token (session.WithToken): when the agent is
	// sandboxed, where it cannot read the shim's copy that carries it.
	RequireToken bool
	// Own names the agent's own commands (session.WithOwnCommands).
	Own func(command string) bool
	// SelfCheck, when set, answers the agent's swetouch-self-check
	// (session.WithSelfCheck): it is linked beside the shims.
	SelfCheck func(ctx context.Context) (string, error)
	// OnEvent, when set, is told every event once recorded
	// (session.WithEventHook).
	OnEvent func(event.Event)
	Clock   func() time.Time
}

// Host is a hub at work: its watcher, its socket, the shim directory that
// goes first on the agent's PATH, and its recorder. swetouch run and the
// in-place relays share it.
type Host struct {
	Hub *session.Hub
	// Socket is the hub's Unix socket; ShimDir holds bash and sh.
	Socket, ShimDir string
	// Condition and Match are what the policy runs under ("" with no
	// record).
	Condition, Match string

	root    string
	private string
	// base is the workspace as it was at Start, kept outside it and out
	// of the sandbox's view (private is shown to the agent, read-only)
	base    *baseline.Tree
	baseDir string
	own     tokened // the session's copy of the shim
	tools   string  // commands for the agent besides the shims ("" for none)
	watcher *watch.Watcher
	stop    context.CancelFunc
	served  chan struct{}
}

// Start starts the hub over cfg.Root with its watcher, serves it on a
// socket in a private directory, and makes the shim directory. Close
// undoes all of it.
func StartHost(cfg HostConfig) (host *Host, err error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	h := &Host{root: cfg.Root}
	opts := []session.Option{session.WithClock(cfg.Clock)}
	if cfg.Own != nil {
		opts = append(opts, session.WithOwnCommands(cfg.Own))
	}
	if cfg.SelfCheck != nil {
		opts = append(opts, session.WithSelfCheck(cfg.SelfCheck))
	}
	if cfg.OnEvent != nil {
		opts = append(opts, session.WithEventHook(cfg.OnEvent))
	}
	var below user.User
	for _, k := range cfg.Users {
		u, err := k.Make(below)
		if err != nil {
			return nil, err
		}
		if l, ok := u.(user.Labelled); ok {
			h.Condition, h.Match = string(l.Condition()), string(l.Match())
		}
		below = u
	}
	if below != nil {
		opts = append(opts, session.WithUser(below))
	}
	if cfg.Header.Condition == "" {
		cfg.Header.Condition = h.Condition
		if cfg.Header.Condition == "" {
			cfg.Header.Condition = string(policy.Vanilla)
		}
	}
	if cfg.Trajectory != nil {
		rec, err := trajectory.NewWriter(rawfd.Writer(cfg.Trajectory), cfg.Header)
		if err != nil {
			return nil, err
		}
		opts = append(opts, session.WithRecorder(rec))
	}
	// what runs killed outright left behind goes first
	removeLeftovers(os.TempDir())
	if h.private, err = os.MkdirTemp("", "swetouch-run-"); err != nil {
		return nil, err
	}
	owned := cfg.Owned[:len(cfg.Owned):len(cfg.Owned)]
	if h.base = cfg.Baseline; h.base == nil {
		if h.baseDir, err = os.MkdirTemp("", "swetouch-base-"); err != nil {
			os.RemoveAll(h.private)
			return nil, err
		}
		owned = append(owned, h.baseDir)
	}
	if err = own(h.private, owned...); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			h.release()
		}
	}()
	if h.base == nil {
		// a copy, before the agent acts: an in-place relay's directory
		// is the agent's to change from the start
		if h.base, err = baseline.Take(cfg.Root, filepath.Join(h.baseDir, "tree"), append(absolute(cfg.Ignore), h.private)...); err != nil {
			return nil, err
		}
	}
	if h.watcher, err = watch.New(cfg.Root, watch.From(h.base), watch.Ignoring(append(cfg.Ignore, h.private)...)); err != nil {
		return nil, fmt.Errorf("watching %s: %w", cfg.Root, err)
	}
	if h.ShimDir, h.own, err = tokenShims(h.private, cfg.Shim, filepath.Join(h.private, "hub.sock")); err != nil {
		return nil, err
	}
	if cfg.RequireToken && h.own.token != "" {
		opts = append(opts, session.WithToken(h.own.token))
	}
	if cfg.SelfCheck != nil {
		// the full swetouch, which answers to this name
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		// a folder of its own on PATH: the shim takes its own folder off
		// PATH for the commands it runs
		h.tools = filepath.Join(h.private, "tools")
		if err := os.MkdirAll(h.tools, 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(self, filepath.Join(h.tools, SelfCheckCommand)); err != nil {
			return nil, err
		}
	}
	if h.Hub, err = session.New(cfg.Root, append(opts, session.WithWatcher(h.watcher), session.WithClients(append(clients(h.ShimDir), h.own.clients...)...))...); err != nil {
		return nil, err
	}
	h.Socket = filepath.Join(h.private, "hub.sock")
	l, err := session.ListenUnix(h.Socket)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	h.stop, h.served = stop, make(chan struct{})
	go func() { h.Hub.ServeUnix(ctx, l); close(h.served) }()
	go h.takeNativeEdits(ctx)
	return h, nil
}

// clients are the executables that may act on a hub: the shim, the
// swetouch beside it (hooks, relays), and this process's own.
func clients(shimDir string) []string {
	var out []string
	if shim, err := filepath.EvalSymlinks(filepath.Join(shimDir, "bash")); err == nil {
		out = append(out, shim, filepath.Join(filepath.Dir(shim), "swetouch"))
	}
	if self, err := os.Executable(); err == nil {
		out = append(out, self)
	}
	return out
}

// takeNativeEdits hands the hub the edits made while no command runs. An
// agent's edit tool may write a file in several steps (truncate, write,
// rename): an edit is taken once the files are quiet, or at the next
// command's begin, whichever is first.
func (h *Host) takeNativeEdits(ctx context.Context) {
	var recheck <-chan time.Time
	for {
		select {
		case <-h.watcher.Changed():
			if !settle(ctx, h.watcher.Changed(), nativeSettle) {
				return
			}
		case <-recheck:
		case <-ctx.Done():
			return
		}
		recheck = nil
		if wait, _ := h.Hub.IdleHeld(ctx, commandHold); wait > 0 {
			// a command too young to be held against: look again when
			// it is not
			recheck = time.After(wait)
		}
	}
}

// commandHold is how long a command may run before the changes made
// meanwhile are taken without waiting for its end: longer than a shell
// command takes, so a command's own writes stay its own in one event.
const commandHold = 2 * time.Second

// Env is the agent's environment made from env: the shim first on PATH,
// the hub's socket, and none of swetouch's own settings.
func (h *Host) Env(env []string) []string {
	out := agentEnv(env, h.ShimDir, h.Socket, h.root)
	if h.tools == "" {
		return out
	}
	for i, kv := range out {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + p + string(os.PathListSeparator) + h.tools
		}
	}
	return out
}

// Close records the session's end with note, stops serving and
// watching, and removes the private directory. Call session.Hub.Idle first to
// take the agent's last native edits (swetouch run verifies in between,
// and what the tests write is not the agent's).
func (h *Host) Close(note string) error {
	err := h.Hub.Close(note)
	h.release()
	return err
}

func (h *Host) release() {
	if h.stop != nil {
		h.stop()
		<-h.served
		h.stop = nil
	}
	if h.watcher != nil {
		h.watcher.Close()
	}
	os.RemoveAll(h.private)
	if h.baseDir != "" {
		os.RemoveAll(h.baseDir)
	}
}

// FinalDiff is the workspace's change since Start, in git's format, and
// the files it names: every file the verifier's copy would hold, ignored
// ones included, computed by swetouch from its own copy of the start (the
// workspace's .git is the agent's, and is never asked). Take it after
// session.Hub.Idle and before Close.
func (h *Host) FinalDiff() ([]byte, []baseline.File, error) { return h.base.Diff(h.root) }

// SelfCheckCommand is the command a session with a self-check puts on
// the agent's PATH.
const SelfCheckCommand = "swetouch-self-check"

// absolute is dirs made absolute (the ones that cannot be are dropped).
func absolute(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil {
			out = append(out, a)
		}
	}
	return out
}

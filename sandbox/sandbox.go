// Package sandbox runs a process in a mount, PID and user namespace of its
// own with bubblewrap (bwrap): the agent under test, and the verifier's
// run of the task's tests, which executes the agent's code. What it sees
// is the system directories read-only, the paths a Spec names, a fresh
// /tmp and home, its own /proc, and nothing else of the host. docs/isolation.md
// says what this stops and what it does not.
package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/swetouch/swetouch/internal/safefile"
)

// Name is how result.json names the isolation a run had.
const (
	Bwrap = "bwrap"
	None  = "none"
)

// Spec is what a sandboxed process may see besides the system
// directories. Paths are absolute host paths, mounted at the same place.
type Spec struct {
	// Writable are bound read-write (the workspace, a scratch folder).
	Writable []string
	// ReadOnly are bound read-only (the shim, the agent's own install).
	ReadOnly []string
	// Hidden must never be visible: a bind that holds one, or lies in
	// one, is refused (the task, its records, the output folder).
	Hidden []string
	// Home is the HOME inside: a fresh tmpfs there unless a Writable
	// path holds it.
	Home string
	// Dir is the working directory inside.
	Dir string
	// Network is what it reaches of the network (the zero value: nothing).
	Network Network
	// User, when set, is the host uid it runs as (a trial's Lease), so
	// per-uid kernel limits are its own; nil: swetouch's uid. Its
	// Writable paths become that uid's.
	User *HostUser
	// SharedUID, with no User, says why it has no uid of its own
	// (Lease's error), for its Usage.
	SharedUID string
	// Over are files shown in another's place for this sandbox alone,
	// over the Runner's (a trial's copy of swetouch carrying its
	// session's token).
	Over map[string]string
	// Shells, when set, puts the shim at the system's shells (the agent's
	// sandbox; the verifier's runs the real ones).
	Shells Shells
}

// Setup is how a run isolates its processes: the runner (nil: not at
// all), and what each of its sandboxes adds, an environment and host paths
// to read (swetouch for its hooks, the Go build cache's socket and relay).
type Setup struct {
	Runner  *Runner
	Env     []string
	Visible []string
	// User is the host uid the trial's sandboxes run as (its Lease), or
	// nil with SharedUID saying why it has none.
	User      *HostUser
	SharedUID string
	// Over are the trial's own files shown in another's place (Spec.Over).
	Over map[string]string
}

// ErrUnavailable is wrapped by Check's error when bwrap cannot run here.
var ErrUnavailable = errors.New("sandbox unavailable")

// Runner builds sandboxed commands. Its zero value finds bwrap on PATH.
type Runner struct {
	// Bwrap is the bwrap executable ("" = on PATH).
	Bwrap string
	// System are the host directories every sandbox sees read-only
	// (nil = DefaultSystem).
	System []string
	// Hidden are paths no sandbox shows, besides its Spec's (swetouch's
	// own module in a module cache a sandbox would show).
	Hidden []string
	// Over are host files each sandbox that would show one shows as
	// another file instead (path: what to show there): swetouch itself as
	// its copy without the examples' archive (Scrubbed).
	Over map[string]string
	// Remember is the file a passing Check is remembered in, so that
	// later runs on this boot need not run bwrap to know it can ("" =
	// swetouch's under the user's cache folder; "-" = never remembered).
	Remember string
	// Limits bound each sandbox, in a control group of its own (the
	// zero value: none).
	Limits Limits
	// Notice is told, once, why limits could not be set here (nil: not
	// told; each sandbox's Usage says so all the same).
	Notice func(string)
	// UIDs are the host uids its trials lease (the zero value:
	// DefaultUIDs).
	UIDs UIDRange

	once       sync.Once
	err        error
	groups     atomic.Int64 // control groups made, for their names
	sweepOnce  sync.Once
	noticeOnce sync.Once
	// unfiltered runs sandboxes without the seccomp filter: only tests of
	// the barriers behind it set it
	unfiltered bool
}

// DefaultSystem is what a process needs of the host to run: programs,
// libraries, configuration. Nothing in them is evaluation data.
var DefaultSystem = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/sys"}

func (r *Runner) bwrap() string {
	if r.Bwrap != "" {
		return r.Bwrap
	}
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p
	}
	return "bwrap"
}

// Command returns cmd wrapped to run inside the sandbox spec describes;
// cmd's Path, Args, Env, Dir, standard streams, SysProcAttr and WaitDelay
// carry over.
// Start and Wait the returned Sandboxed instead of cmd.
func (r *Runner) Command(cmd *exec.Cmd, spec Spec) (*Sandboxed, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if err := CloseInherited(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	spec.Hidden = append(slices.Clone(spec.Hidden), r.Hidden...)
	spec, err := spec.absolute()
	if err != nil {
		return nil, err
	}
	if spec.Dir == "" {
		spec.Dir = cmd.Dir
	}
	args, sh, err := r.args(cmd, spec)
	if err != nil {
		return nil, err
	}
	// Three descriptors beside the standard streams: 3 carries the mounts
	// (--args), so the sandbox's pid 1, whose command line its processes
	// can read, shows only the command; 4 is where a shell inside says the
	// sandbox is made before it becomes the command (bwrap's own failures
	// and the command's exit 1 look alike: both exit 1, and bwrap reports
	// its child before it sets the sandbox up); 5 is bwrap's status, which
	// names the sandbox's pid 1.
	// 6 is the seccomp filter (seccomp.go); a fifth, 7, is where
	// swetouch says it has done its part inside (relays made, processes
	// moved into their control groups), when it has one.
	prog, err := r.filter()
	if err != nil {
		return nil, err
	}
	filter, err := filterFile(prog)
	if err != nil {
		return nil, err
	}
	s := &Sandboxed{runner: r, args: args, filter: filter}
	if len(spec.Network.Relay) > 0 && !spec.Network.Host {
		s.relay = newRelay(spec.Network.Relay)
	}
	s.limit()
	n, script := 3, startedScript
	if s.relay != nil || s.cg != nil && !s.cg.v2 {
		n, script = 4, gatedScript
	}
	p, err := pipes(n)
	if err != nil {
		filter.Close()
		if s.cg != nil {
			s.cg.remove()
		}
		return nil, err
	}
	w := exec.Command(r.bwrap(), append([]string{"--args", "3", "--json-status-fd", "5", "--", sh, "-c", script, cmd.Path}, cmd.Args[1:]...)...)
	w.Env, w.Stdin, w.Stdout, w.Stderr, w.SysProcAttr, w.WaitDelay = cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.SysProcAttr, cmd.WaitDelay
	w.ExtraFiles = []*os.File{p[0][0], p[1][1], p[2][1], filter}
	s.Cmd, s.argsR, s.argsW, s.startedR, s.startedW, s.statusR, s.statusW = w, p[0][0], p[0][1], p[1][0], p[1][1], p[2][0], p[2][1]
	if n == 4 {
		w.ExtraFiles = append(w.ExtraFiles, p[3][0])
		s.goR, s.goW = p[3][0], p[3][1]
	}
	if s.cg != nil {
		s.cg.wrap(w)
	}
	if spec.User != nil {
		system := r.System
		if system == nil {
			system = DefaultSystem
		}
		s.asUser(*spec.User, spec, system)
	} else {
		s.usage.SharedUID = spec.SharedUID
	}
	return s, nil
}

// pipes makes n pipes, each as {read, write}; none when one fails.
func pipes(n int) ([][2]*os.File, error) {
	var out [][2]*os.File
	for range n {
		r, w, err := os.Pipe()
		if err != nil {
			for _, p := range out {
				p[0].Close()
				p[1].Close()
			}
			return nil, err
		}
		out = append(out, [2]*os.File{r, w})
	}
	return out, nil
}

// startedScript runs inside the sandbox before the command: it writes one
// byte on descriptor 4 and closes 3 to 6, so the command inherits none.
const startedScript = `printf . >&4 && exec 3<&- 4>&- 5>&- 6<&- && exec "$0" "$@"`

func (r *Runner) args(cmd *exec.Cmd, spec Spec) ([]string, string, error) {
	a := []string{"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--cap-drop", "ALL", "--hostname", "sandbox", "--disable-userns", "--seccomp", "6"}
	system := r.System
	if system == nil {
		system = DefaultSystem
	}
	for _, p := range system {
		info, err := os.Lstat(p)
		switch {
		case err != nil:
			continue
		case info.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return nil, "", err
			}
			a = append(a, "--symlink", l, p)
		default:
			a = append(a, "--ro-bind", p, p)
		}
	}
	a = append(a, spec.Network.netArgs()...)
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run")
	shim := spec.Shells.Shim
	if o, ok := r.Over[shim]; ok {
		shim = o // swetouch as the shim: its copy without the examples
	}
	binds, err := spec.binds()
	if err != nil {
		return nil, "", err
	}
	if spec.Home != "" && !Under(spec.Home, spec.Writable) {
		a = append(a, "--tmpfs", spec.Home)
	}
	a = append(a, binds...)
	// after the binds: one of a shell's own path (the agent run as
	// `/usr/bin/bash agent.sh`, its install bound) must not undo it
	shells, sh := spec.Shells.args(shim)
	a = append(a, shells...)
	bound := append(slices.Clone(system), append(spec.Writable, spec.ReadOnly...)...)
	a = append(a, spec.masks(bound)...)
	a = append(a, r.over(bound, spec.Over)...)
	if spec.Dir != "" {
		a = append(a, "--chdir", spec.Dir)
	}
	return a, sh, nil
}

// absolute is the Spec with every path made absolute and clean: a hidden
// path given relative (a task named from the current directory) must
// still be found inside the binds that would show it.
func (s Spec) absolute() (Spec, error) {
	abs := func(ps []string) ([]string, error) {
		out := make([]string, len(ps))
		for i, p := range ps {
			a, err := filepath.Abs(p)
			if err != nil {
				return nil, fmt.Errorf("sandbox: %w", err)
			}
			out[i] = a
		}
		return out, nil
	}
	var err error
	if s.Writable, err = abs(s.Writable); err != nil {
		return s, err
	}
	if s.ReadOnly, err = abs(s.ReadOnly); err != nil {
		return s, err
	}
	s.Hidden, err = abs(s.Hidden)
	return s, err
}

// binds are the Spec's bind mounts, parents before children so a
// read-only path inside a writable one stays read-only.
func (s Spec) binds() ([]string, error) {
	type bind struct {
		path string
		rw   bool
	}
	var bs []bind
	for _, p := range s.Writable {
		bs = append(bs, bind{filepath.Clean(p), true})
	}
	for _, p := range s.ReadOnly {
		bs = append(bs, bind{filepath.Clean(p), false})
	}
	slices.SortStableFunc(bs, func(x, y bind) int { return strings.Count(x.path, "/") - strings.Count(y.path, "/") })
	var a []string
	seen := map[bind]bool{}
	for _, b := range bs {
		for _, h := range s.Hidden {
			if safefile.Inside(b.path, filepath.Clean(h)) {
				return nil, fmt.Errorf("sandbox: %s would show the agent %s, which it must not see; move one of them, or run with --no-sandbox", b.path, h)
			}
		}
		if seen[b] {
			continue
		}
		seen[b] = true
		if _, err := os.Stat(b.path); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if b.rw {
			a = append(a, "--bind", b.path, b.path)
		} else {
			a = append(a, "--ro-bind", b.path, b.path)
		}
	}
	return a, nil
}

// masks cover each hidden path that a bound directory holds: an empty
// directory over a directory, /dev/null over a file (a task kept under
// /opt, an output folder inside a scratch folder).
func (s Spec) masks(bound []string) []string {
	var a []string
	for _, h := range s.Hidden {
		h = filepath.Clean(h)
		if !Under(h, bound) {
			continue
		}
		info, err := os.Stat(h)
		switch {
		case err != nil:
			// not there yet (an output folder made later): nothing to hide
		case info.IsDir():
			a = append(a, "--tmpfs", h, "--remount-ro", h)
		default:
			a = append(a, "--ro-bind", "/dev/null", h)
		}
	}
	return a
}

// Under reports whether p is one of dirs or lies inside one.
func Under(p string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return safefile.Inside(filepath.Clean(p), filepath.Clean(d)) })
}

// Sandboxed is a command wrapped in a sandbox.
type Sandboxed struct {
	*exec.Cmd
	args           []string
	argsR, argsW   *os.File
	startedR       *os.File
	startedW       *os.File
	statusR        *os.File
	statusW        *os.File
	filter         *os.File
	started        chan bool // whether the shell inside said the sandbox is made
	pid            *pid1
	waited         chan struct{} // closed once bwrap has exited
	stuck          atomic.Bool   // pid 1 did not pass on the command's exit
	runner         *Runner
	startedProcess bool
	// the relays (nil: none), and the pipe that lets the command start
	// once they are made
	relay    *relay
	goR, goW *os.File
	relayErr error
	// its control group (nil: no limits), and what they came to
	cg      *cgroup
	joined  chan error // bwrap's own move (v1)
	joinErr error
	usage   Usage
}

// Start starts bwrap; the command inside starts once the sandbox is made.
func (s *Sandboxed) Start() error {
	if err := s.Cmd.Start(); err != nil {
		s.argsR.Close()
		s.argsW.Close()
		s.startedR.Close()
		s.startedW.Close()
		s.statusR.Close()
		s.statusW.Close()
		s.filter.Close()
		s.closeGate()
		if s.cg != nil {
			s.cg.remove()
		}
		return err
	}
	s.filter.Close()
	s.argsR.Close()
	s.startedW.Close()
	s.statusW.Close()
	if s.goR != nil {
		s.goR.Close()
	}
	if s.cg != nil && !s.cg.v2 {
		// bwrap into its groups while it makes the sandbox (a move waits
		// out an RCU grace period); what it forks meanwhile, before the
		// command, follows once it reports
		s.joined = make(chan error, 1)
		go func() { s.joined <- s.cg.move(s.Cmd.Process.Pid) }()
	}
	args := s.args
	go func() {
		// NUL-separated, as --args takes them; written after the start
		// so a list larger than a pipe's buffer does not block
		var b bytes.Buffer
		for _, a := range args {
			b.WriteString(a)
			b.WriteByte(0)
		}
		s.argsW.Write(b.Bytes())
		s.argsW.Close()
	}()
	s.started = make(chan bool, 1)
	s.pid, s.waited = newPid1(), make(chan struct{})
	go initPidfd(s.statusR, s.pid.set)
	go func() {
		var b [1]byte
		n, _ := io.ReadFull(s.startedR, b[:])
		s.startedR.Close()
		if s.goW != nil {
			if n == 1 {
				s.release()
			}
			s.goW.Close()
		}
		if n == 1 {
			s.watch(s.waited)
		}
		s.started <- n == 1
	}()
	return nil
}

// SetupError is the error of a sandbox that bwrap could not make: the
// command inside never started, so its exit says nothing about it.
type SetupError struct {
	Exit int
	// Err is what failed on swetouch's side (a relay, the move into the
	// control groups), if that was it.
	Err error
}

func (e *SetupError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("sandbox: %v, so the command never started", e.Err)
	}
	return fmt.Sprintf("sandbox: bwrap failed before the command started (exit %d)", e.Exit)
}

func (e *SetupError) Unwrap() error { return e.Err }

// Wait waits for the sandbox to end. When bwrap failed before starting
// the command it returns a *SetupError; otherwise what exec.Cmd.Wait
// returns for the command's own exit (ErrPid1Stuck when the sandbox's
// pid 1 did not pass it on). The whole process tree inside has ended by
// then: when the command exits, the host kills the sandbox's pid 1, and
// the kernel kills every process left in its namespace.
func (s *Sandboxed) Wait() error {
	err := s.Cmd.Wait()
	close(s.waited)
	// bwrap exits once its pid 1 has passed on the command's exit; what
	// is left inside goes with pid 1, killed from here whatever state it
	// is in, and is gone before Wait returns
	s.pid.end()
	if s.cg != nil {
		s.cg.kill()
		uid, shared := s.usage.UID, s.usage.SharedUID
		s.usage = s.cg.usage()
		s.usage.UID, s.usage.SharedUID = uid, shared
		s.cg.remove()
	}
	s.startedProcess = <-s.started
	if s.stuck.Load() && s.startedProcess {
		err = ErrPid1Stuck
	}
	if s.relay != nil {
		s.relay.close()
	}
	if err := errors.Join(s.joinErr, s.relayErr); err != nil {
		s.startedProcess = false
		return &SetupError{Exit: s.Cmd.ProcessState.ExitCode(), Err: err}
	}
	if !s.startedProcess {
		s.runner.forget() // the next Check asks bwrap again
		return &SetupError{Exit: s.Cmd.ProcessState.ExitCode()}
	}
	return err
}

// Started reports, after Wait, whether the command inside had started.
func (s *Sandboxed) Started() bool { return s.startedProcess }

// Tools are the directories a process finds its programs in, from the
// PATH of env, that the system directories do not already hold: for an
// entry under home the top folder of home holding it (a version manager
// such as ~/.pyenv needs all of its tree), else the entry itself. A Go
// workspace (~/go) is shown by its entry alone (~/go/bin): the rest is
// its module cache, which holds the sources of all that `go install`
// fetched, swetouch's examples among them.
func Tools(env []string, system []string) []string {
	if system == nil {
		system = DefaultSystem
	}
	var path, home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		} else if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	// the account's own home too: a tool installed there (pyenv's shims
	// call back into ~/.pyenv) stays whole when HOME points elsewhere
	homes := []string{home}
	if u, err := user.Current(); err == nil && u.HomeDir != home {
		homes = append(homes, u.HomeDir)
	}
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		if Under(dir, system) || Under(dir, []string{"/tmp"}) {
			continue
		}
		for _, home := range homes {
			if home != "" && home != "/" && safefile.Inside(dir, home) && dir != home {
				rel, _ := filepath.Rel(home, dir)
				if top := filepath.Join(home, strings.Split(rel, string(filepath.Separator))[0]); !goWorkspace(top) {
					dir = top
				}
				break
			}
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() || slices.Contains(out, dir) {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// Install is what an executable needs to run: the file itself, and for a
// program installed by npm the node_modules folder that holds it and its
// dependencies.
func Install(exe string) []string {
	out := []string{exe}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return out
	}
	if real != exe {
		out = append(out, real)
	}
	for _, p := range []string{exe, real} {
		if i := strings.LastIndex(p, "/node_modules/"); i >= 0 {
			out = append(out, p[:i+len("/node_modules")])
		}
		// a Python agent's virtual environment: its bin/ script runs the
		// environment's interpreter over its site-packages
		if venv := filepath.Dir(filepath.Dir(p)); fileExists(filepath.Join(venv, "pyvenv.cfg")) {
			out = append(out, venv)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// initPidfd reads bwrap's status lines for the sandbox's pid 1 and opens a
// pidfd on it while it still runs (the command inside keeps it alive), so
// the pid cannot have been reused. found gets the pid and the pidfd as
// soon as it is open, or (0, -1) once the status has ended without one
// (nothing to wait for); it is called once.
func initPidfd(status *os.File, found func(pid, fd int)) {
	defer status.Close()
	fd := -1
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		var m struct {
			ChildPID int `json:"child-pid"`
		}
		if fd < 0 && json.Unmarshal(sc.Bytes(), &m) == nil && m.ChildPID > 0 {
			if pfd, err := unix.PidfdOpen(m.ChildPID, 0); err == nil {
				fd = pfd
				found(m.ChildPID, fd)
			}
		}
	}
	if fd < 0 {
		found(0, -1)
	}
}

// waitExit waits until the process of pidfd fd has exited, and closes fd.
// The kernel lets a PID namespace's pid 1 exit only once every other
// process in it has.
func waitExit(fd int) {
	defer unix.Close(fd)
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err != unix.EINTR {
			return
		}
	}
}

// fileExists reports whether p names a regular file.
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

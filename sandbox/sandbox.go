// Package sandbox runs a process in a mount, PID and user namespace of its
// own with bubblewrap (bwrap): the agent under test, and the verifier's
// run of the task's tests, which executes the agent's code. What it sees
// is the system directories read-only, the paths a Spec names, a fresh
// /tmp and home, its own /proc, and nothing else of the host. docs/isolation.md
// says what this stops and what it does not.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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

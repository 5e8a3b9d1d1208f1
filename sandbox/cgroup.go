package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Limits bound what one sandbox may use, all its processes together: a
// control group of its own. Root inside the sandbox's user namespace
// passes RLIMIT_NPROC, and nothing else bounds its memory.
type Limits struct {
	// Pids is how many processes and threads it may have (0: no limit).
	Pids int64
	// Memory is how many bytes of memory it may hold, its tmpfs files
	// included, swap counted with it where the kernel can (0: no limit);
	// past it the kernel's OOM killer ends a process inside.
	Memory int64
}

// DefaultLimits are roomy for a real agent (a Node.js CLI, its tools, a
// test suite) and stop a fork bomb or a runaway allocation well before
// the host feels it.
var DefaultLimits = Limits{Pids: 4096, Memory: 4 << 30}

// Usage is what a sandbox's limits came to, for result.json.
type Usage struct {
	Pids        int64 `json:"pids_max,omitempty"`
	Memory      int64 `json:"memory_max,omitempty"`
	PidsRefused int64 `json:"pids_refused,omitempty"` // forks refused at the limit
	MemoryPeak  int64 `json:"memory_peak,omitempty"`
	OOMKills    int64 `json:"oom_kills,omitempty"`
	// Unlimited says why no limits could be set (no cgroup controller,
	// not allowed to make one): the run went on without them.
	Unlimited string `json:"unlimited,omitempty"`
	// UID is the host uid the sandbox ran as, leased for its trial alone
	// (0: swetouch's own); SharedUID says why it had none, so its per-uid
	// kernel limits were shared with every concurrent trial.
	UID       int    `json:"uid,omitempty"`
	SharedUID string `json:"uid_shared,omitempty"`
}

// Add is u and v of two sandboxes of one run (a conversation's turns).
func (u Usage) Add(v Usage) Usage {
	u.Pids, u.Memory = max(u.Pids, v.Pids), max(u.Memory, v.Memory)
	u.PidsRefused += v.PidsRefused
	u.MemoryPeak = max(u.MemoryPeak, v.MemoryPeak)
	u.OOMKills += v.OOMKills
	if u.Unlimited == "" {
		u.Unlimited = v.Unlimited
	}
	if u.UID == 0 {
		u.UID = v.UID
	}
	if u.SharedUID == "" {
		u.SharedUID = v.SharedUID
	}
	return u
}

// cgroup is one sandbox's control group: a directory per controller
// under cgroup v1, one directory under v2.
type cgroup struct {
	v2     bool
	dirs   []string
	fd     *os.File // v2: the directory, for clone3's CLONE_INTO_CGROUP
	limits Limits
}

// cgroupMount is where a hierarchy is mounted and which of this
// process's groups is its root there.
type cgroupMount struct {
	dir  string // this process's own group, as a directory
	v2   bool
	ctrl string // v1: the controller
}

// ownCgroups are this process's groups of the pids and memory
// controllers under v1, or its group under v2 when that is where both
// controllers are: what a sandbox's group is made inside.
func ownCgroups() ([]cgroupMount, error) {
	own := map[string]string{} // controller ("" for v2) -> path
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(l, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			own[c] = f[2]
		}
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer mi.Close()
	var v1 []cgroupMount
	var v2 *cgroupMount
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		root, point := f[3], f[4]
		rel := func(path string) string { return filepath.Join(point, strings.TrimPrefix(path, root)) }
		switch g[0] {
		case "cgroup":
			for _, opt := range strings.Split(g[2], ",") {
				if p, ok := own[opt]; ok && (opt == "pids" || opt == "memory") {
					v1 = append(v1, cgroupMount{dir: rel(p), ctrl: opt})
				}
			}
		case "cgroup2":
			if p, ok := own[""]; ok && v2 == nil {
				v2 = &cgroupMount{dir: rel(p), v2: true}
			}
		}
	}
	if len(v1) > 0 {
		return v1, nil
	}
	if v2 != nil {
		c, _ := os.ReadFile(filepath.Join(v2.dir, "cgroup.controllers"))
		if have := strings.Fields(string(c)); contains(have, "pids") || contains(have, "memory") {
			return []cgroupMount{*v2}, nil
		}
	}
	return nil, errors.New("no pids or memory cgroup controller is mounted for this process")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// newCgroup makes a sandbox's group, named for this process, with l set.
func (r *Runner) newCgroup(l Limits) (*cgroup, error) {
	mounts, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("swetouch-%d-%d", os.Getpid(), r.groups.Add(1))
	c := &cgroup{limits: l}
	r.sweepOnce.Do(func() {
		for _, m := range mounts {
			sweep(m.dir)
		}
	})
	for _, m := range mounts {
		dir := filepath.Join(m.dir, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			c.remove()
			return nil, fmt.Errorf("making a control group: %w", err)
		}
		c.dirs, c.v2 = append(c.dirs, dir), m.v2
		if err := c.set(m, dir); err != nil {
			c.remove()
			return nil, err
		}
	}
	if c.v2 {
		if c.fd, err = os.Open(c.dirs[0]); err != nil {
			c.remove()
			return nil, err
		}
	}
	return c, nil
}

// set writes the limits a mount's controllers take.
func (c *cgroup) set(m cgroupMount, dir string) error {
	write := func(file string, v int64) error {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0o644); err != nil {
			return fmt.Errorf("setting the control group's %s: %w", file, err)
		}
		return nil
	}
	pids, mem := m.v2 || m.ctrl == "pids", m.v2 || m.ctrl == "memory"
	if pids && c.limits.Pids > 0 {
		if err := write("pids.max", c.limits.Pids); err != nil {
			return err
		}
	}
	if mem && c.limits.Memory > 0 {
		if m.v2 {
			if err := write("memory.max", c.limits.Memory); err != nil {
				return err
			}
			write("memory.swap.max", 0) // absent without swap accounting
			return nil
		}
		if err := write("memory.limit_in_bytes", c.limits.Memory); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(dir, "memory.memsw.limit_in_bytes")); err == nil {
			return write("memory.memsw.limit_in_bytes", c.limits.Memory)
		}
	}
	return nil
}

// sweep removes the groups a killed swetouch left in dir (empty: the
// sandboxes in them died with it), those named for a process gone.
func sweep(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		var pid, n int
		if _, err := fmt.Sscanf(e.Name(), "swetouch-%d-%d", &pid, &n); err != nil || pid == os.Getpid() {
			continue
		}
		if unix.Kill(pid, 0) == unix.ESRCH {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// wrap has w start inside the group under v2 (clone3's
// CLONE_INTO_CGROUP). Under v1 the host moves bwrap, its pid 1 and the
// shell that becomes the command, before the shell goes on (joinRest).
func (c *cgroup) wrap(w *exec.Cmd) {
	if !c.v2 {
		return
	}
	a := syscall.SysProcAttr{}
	if w.SysProcAttr != nil {
		a = *w.SysProcAttr
	}
	a.UseCgroupFD, a.CgroupFD = true, int(c.fd.Fd())
	w.SysProcAttr = &a
}

// move moves the process pid into the v1 groups. The first move in a
// while waits out an RCU grace period (~12 ms here, whichever hierarchy);
// moves right after it do not.
func (c *cgroup) move(pid int) error {
	var err error
	for _, d := range c.dirs {
		if e := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); e != nil && !errors.Is(e, unix.ESRCH) {
			err = errors.Join(err, e)
		}
	}
	if err != nil {
		return fmt.Errorf("joining the control group: %w", err)
	}
	return nil
}

// joinRest, once bwrap has made the sandbox and its shell waits, moves
// the processes bwrap forked before its own move took: its pid 1 and the
// shell. Nothing else has run: pid 1 forks only the shell, and the shell
// forks nothing before the host's line.
func (s *Sandboxed) joinRest() error {
	if err := <-s.joined; err != nil {
		return err
	}
	<-s.pid.ready
	s.pid.mu.Lock()
	pid := s.pid.pid
	s.pid.mu.Unlock()
	if pid <= 0 {
		return errors.New("joining the control group: no pid 1")
	}
	if err := s.cg.move(pid); err != nil {
		return err
	}
	shell := s.commandPid()
	if shell <= 0 {
		return errors.New("joining the control group: the sandbox's shell is gone")
	}
	return s.cg.move(shell)
}

// kill ends every process left in the group: none once the sandbox's pid
// 1 is gone, unless something left its namespace.
func (c *cgroup) kill() {
	if c.v2 {
		os.WriteFile(filepath.Join(c.dirs[0], "cgroup.kill"), []byte("1"), 0o644)
		return
	}
	for range 100 {
		b, err := os.ReadFile(filepath.Join(c.dirs[0], "cgroup.procs"))
		pids := strings.Fields(string(b))
		if err != nil || len(pids) == 0 {
			return
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
	}
}

// usage reads what the group's limits came to.
func (c *cgroup) usage() Usage {
	u := Usage{Pids: c.limits.Pids, Memory: c.limits.Memory}
	for _, d := range c.dirs {
		u.PidsRefused += keyed(filepath.Join(d, "pids.events"), "max")
		u.OOMKills += keyed(filepath.Join(d, "memory.events"), "oom_kill")
		u.OOMKills += keyed(filepath.Join(d, "memory.oom_control"), "oom_kill")
		for _, f := range []string{"memory.peak", "memory.max_usage_in_bytes"} {
			if b, err := os.ReadFile(filepath.Join(d, f)); err == nil {
				n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
				u.MemoryPeak = max(u.MemoryPeak, n)
			}
		}
	}
	return u
}

// keyed is the number after key in a "key value" file (0 when absent).
func keyed(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// remove removes the group's directories (once empty).
func (c *cgroup) remove() {
	if c.fd != nil {
		c.fd.Close()
	}
	for _, d := range c.dirs {
		os.Remove(d)
	}
}

// limit puts the sandbox in a control group of its own with the runner's
// limits; where none can be made, it runs without, and says why.
func (s *Sandboxed) limit() {
	l := s.runner.Limits
	if l == (Limits{}) {
		return
	}
	cg, err := s.runner.newCgroup(l)
	if err != nil {
		s.usage.Unlimited = err.Error()
		if s.runner.Notice != nil {
			s.runner.noticeOnce.Do(func() { s.runner.Notice("sandbox: no pids or memory limits here: " + err.Error()) })
		}
		return
	}
	s.cg = cg
}

// Usage is, after Wait, what the sandbox's limits came to.
func (s *Sandboxed) Usage() Usage { return s.usage }

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// HostUser is the host uid and gid a sandbox's processes run as. The
// kernel counts some limits per uid across every user namespace (inotify
// instances and watches, processes, user namespaces): a trial that runs
// as a uid of its own can use up only its own.
type HostUser struct {
	UID, GID int
}

// UIDRange is where trials' uids come from: Count uids from First, each
// leased by a lock file in Dir that one process holds (flock), so no two
// concurrent trials, of this swetouch or another, hold one; the kernel
// drops the lock when its holder dies, so a crashed run frees its uid.
type UIDRange struct {
	First, Count int
	// Dir holds the lock files ("" = /run/swetouch/uids, else the user's
	// cache folder's swetouch/uids).
	Dir string
}

// DefaultUIDs are far above any account's uid and below the 32-bit
// limit; the gid is the uid.
var DefaultUIDs = UIDRange{First: 2_000_000_000, Count: 1 << 16}

// Lease is one trial's hold on a uid of a range; Release frees it.
type Lease struct {
	User HostUser
	lock *os.File
}

// ErrShared is wrapped by Lease's error when this process cannot give a
// trial a uid of its own (it is not root, the uid is not mapped here):
// the trial then shares swetouch's uid, and its per-uid limits with
// every other trial.
var ErrShared = errors.New("the trial shares swetouch's uid")

// Lease takes the first uid of the range no other process holds.
func (r UIDRange) Lease() (*Lease, error) {
	if uid := os.Geteuid(); uid != 0 {
		return nil, fmt.Errorf("%w: swetouch runs as uid %d, not root, so every sandbox runs as uid %d and per-uid kernel limits (inotify instances, processes) are shared with every concurrent trial", ErrShared, uid, uid)
	}
	if r.Count <= 0 {
		return nil, fmt.Errorf("%w: no uid range", ErrShared)
	}
	if !mapped("/proc/self/uid_map", r.First, r.Count) || !mapped("/proc/self/gid_map", r.First, r.Count) {
		return nil, fmt.Errorf("%w: uids %d to %d are not mapped in swetouch's user namespace", ErrShared, r.First, r.First+r.Count-1)
	}
	dir, err := r.dir()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShared, err)
	}
	for i := range r.Count {
		uid := r.First + i
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(uid)), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrShared, err)
		}
		switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); {
		case err == nil:
			return &Lease{User: HostUser{UID: uid, GID: uid}, lock: f}, nil
		case errors.Is(err, unix.EWOULDBLOCK):
			f.Close()
		default:
			f.Close()
			return nil, fmt.Errorf("%w: locking %s: %v", ErrShared, f.Name(), err)
		}
	}
	return nil, fmt.Errorf("%w: all %d uids from %d are held by running trials", ErrShared, r.Count, r.First)
}

// dir is the lock files' folder, made root's alone.
func (r UIDRange) dir() (string, error) {
	dirs := []string{r.Dir}
	if r.Dir == "" {
		dirs = []string{"/run/swetouch/uids"}
		if c, err := os.UserCacheDir(); err == nil {
			dirs = append(dirs, filepath.Join(c, "swetouch", "uids"))
		}
	}
	var err error
	for _, d := range dirs {
		if err = os.MkdirAll(d, 0o700); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no folder for the uid leases: %w", err)
}

// LeaseUID leases a uid of the runner's range for one trial.
func (r *Runner) LeaseUID() (*Lease, error) {
	if r.UIDs.Count == 0 {
		return DefaultUIDs.Lease()
	}
	return r.UIDs.Lease()
}

// Release frees the uid for another trial; the sandboxes that ran as it
// must have ended (Sandboxed.Wait kills everything in them).
func (l *Lease) Release() {
	if l != nil && l.lock != nil {
		l.lock.Close() // closing the last descriptor drops the flock
		l.lock = nil
	}
}

// mapped reports whether ids first to first+count-1 are all mapped in
// this process's user namespace (an id map file's lines: inside, outside,
// count).
func mapped(file string, first, count int) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var in, out, n int
		if _, err := fmt.Sscan(sc.Text(), &in, &out, &n); err == nil && first >= in && first+count <= in+n {
			return true
		}
	}
	return false
}

// reachable says why u cannot reach path (nil: it can), as the kernel
// decides it for bwrap running as u: search permission on every folder
// above it.
func (u HostUser) reachable(path string) error {
	path = filepath.Clean(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		var st unix.Stat_t
		if err := unix.Stat(dir, &st); err != nil {
			return err
		}
		var x uint32 = 0o001
		switch {
		case int(st.Uid) == u.UID:
			x = 0o100
		case int(st.Gid) == u.GID:
			x = 0o010
		}
		if st.Mode&x == 0 {
			return fmt.Errorf("uid %d cannot reach %s: %s is mode %#o, owned by %d:%d", u.UID, path, dir, st.Mode&0o7777, st.Uid, st.Gid)
		}
		if dir == "/" {
			return nil
		}
	}
}

// give makes the tree at root u's (what the agent must write: the
// workspace, its scratch folders), without following links.
func (u HostUser) give(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == u.UID && int(st.Gid) == u.GID {
			return nil
		}
		if err := os.Lchown(p, u.UID, u.GID); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// asUser has the sandbox run as u: bwrap itself, so the user namespace it
// makes is u's and what the kernel counts per uid is counted against u;
// root inside, as before, mapped to u. Every path the sandbox binds must
// be one u can reach, and the Writable ones become u's; when one cannot
// be reached the sandbox runs as swetouch's uid and its Usage says why.
func (s *Sandboxed) asUser(u HostUser, spec Spec, system []string) {
	var paths []string
	shown := append(append(append([]string{}, spec.Writable...), spec.ReadOnly...), system...)
	for _, p := range s.runner.Over {
		shown = append(shown, p)
	}
	for _, p := range spec.Over {
		shown = append(shown, p)
	}
	for _, p := range shown {
		if _, err := os.Lstat(p); err == nil {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		if err := u.reachable(p); err != nil {
			s.usage.SharedUID = fmt.Sprintf("%v: %v", ErrShared, err)
			return
		}
	}
	for _, p := range spec.Writable {
		if err := u.give(p); err != nil {
			s.usage.SharedUID = fmt.Sprintf("%v: giving %s to uid %d: %v", ErrShared, p, u.UID, err)
			return
		}
	}
	a := syscall.SysProcAttr{}
	if s.Cmd.SysProcAttr != nil {
		a = *s.Cmd.SysProcAttr
	}
	a.Credential = &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), Groups: []uint32{}}
	s.Cmd.SysProcAttr = &a
	s.args = append(s.args, "--uid", "0", "--gid", "0")
	s.usage.UID = u.UID
}

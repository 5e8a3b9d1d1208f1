package sandbox

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// testUIDs is a range of its own for a test, its locks in a folder of
// the test's.
func testUIDs(t *testing.T, first int) UIDRange {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a uid of the trial's own needs root")
	}
	return UIDRange{First: first, Count: 4, Dir: t.TempDir()}
}

// TestLeaseHeldAndFreed: no two leases hold one uid; Release frees it; so
// does the death of the process that held it (a crashed run).
func TestLeaseHeldAndFreed(t *testing.T) {
	r := testUIDs(t, 2_000_100_000)
	a, err := r.Lease()
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Lease()
	if err != nil {
		t.Fatal(err)
	}
	if a.User == b.User {
		t.Fatalf("two leases hold uid %d", a.User.UID)
	}
	a.Release()
	c, err := r.Lease()
	if err != nil {
		t.Fatal(err)
	}
	if c.User != a.User {
		t.Fatalf("released uid %d was not leased again (got %d)", a.User.UID, c.User.UID)
	}
	c.Release()
	b.Release()

	// another process holds the first uid's lock, then dies
	held := exec.Command("flock", "-x", "-o", filepath.Join(r.Dir, "2000100000"), "-c", "echo held; read _")
	stdin, _ := held.StdinPipe()
	out, _ := held.StdoutPipe()
	if err := held.Start(); err != nil {
		t.Skipf("no flock(1): %v", err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("flock said %q", line)
	}
	d, err := r.Lease()
	if err != nil {
		t.Fatal(err)
	}
	if d.User.UID == 2_000_100_000 {
		t.Fatal("leased a uid another process holds")
	}
	d.Release()
	held.Process.Kill()
	held.Wait()
	stdin.Close()
	e, err := r.Lease()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	if e.User.UID != 2_000_100_000 {
		t.Fatalf("the dead holder's uid was not freed: got %d", e.User.UID)
	}
}

// reachableDir is a folder every uid can reach (t.TempDir's are root's
// alone).
func reachableDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	for p := d; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o711)
	}
	return d
}

// TestRunsAsItsUID: the sandbox's processes run as the leased host uid
// (root inside, mapped to it), the workspace is made theirs, and what
// they write is owned by that uid on the host.
func TestRunsAsItsUID(t *testing.T) {
	r := need(t)
	lease, err := testUIDs(t, 2_000_100_100).Lease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	ws := filepath.Join(reachableDir(t), "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "given"), []byte("x\n"), 0o644)
	u := lease.User
	spec := Spec{Writable: []string{ws}, Dir: ws, User: &u}
	var buf strings.Builder
	cmd := exec.Command("/bin/bash", "-c", "id -u; echo y >> given && echo new > made && grep Uid /proc/self/status")
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	s, err := r.Command(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got := s.Usage(); got.UID != u.UID || got.SharedUID != "" {
		t.Fatalf("usage %+v, want uid %d", got, u.UID)
	}
	if !strings.HasPrefix(buf.String(), "0\n") {
		t.Fatalf("inside, want uid 0; got %q", buf.String())
	}
	for _, f := range []string{"given", "made"} {
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(ws, f), &st); err != nil {
			t.Fatal(err)
		}
		if int(st.Uid) != u.UID {
			t.Errorf("%s is owned by %d on the host, want %d", f, st.Uid, u.UID)
		}
	}
}

// TestUnreachableShares: a path the trial's uid cannot reach (a folder of
// root's alone above it) leaves the sandbox on swetouch's uid, and its
// Usage says why rather than failing the run.
func TestUnreachableShares(t *testing.T) {
	r := need(t)
	lease, err := testUIDs(t, 2_000_100_200).Lease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	closed := t.TempDir()
	os.Chmod(closed, 0o700)
	tools := filepath.Join(closed, "tools")
	os.Mkdir(tools, 0o755)
	ws := reachableDir(t)
	u := lease.User
	var buf strings.Builder
	cmd := exec.Command("/bin/bash", "-c", "ls "+tools+" && echo ok")
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	s, err := r.Command(cmd, Spec{Writable: []string{ws}, ReadOnly: []string{tools}, Dir: ws, User: &u})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil || !strings.Contains(buf.String(), "ok") {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got := s.Usage(); got.UID != 0 || !strings.Contains(got.SharedUID, closed) {
		t.Fatalf("usage %+v, want no uid and the unreachable folder named", got)
	}
}

// holdInotify starts a sandbox that takes every inotify instance its uid
// may have and holds them until its stdin closes; it returns once they
// are held.
func holdInotify(t *testing.T, r *Runner, spec Spec) (release func()) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "-c", `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while libc.inotify_init() >= 0:
    n += 1
print("held", n, flush=True)
sys.stdin.read()
`)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	s, err := r.Command(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	s.Stdin, s.Stdout = cmd.Stdin, cmd.Stdout
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout.(io.Reader)).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "held ") {
		t.Fatalf("the hog said %q (%v)", line, err)
	}
	t.Logf("the hog %s", strings.TrimSpace(line))
	return func() { stdin.Close(); s.Wait() }
}

// TestInotifyPerTrial: a sandbox that takes all its uid's inotify
// instances leaves another trial's sandbox, and swetouch's own watcher,
// theirs. With both on swetouch's uid (User nil) the second sandbox and
// the host's inotify_init fail with EMFILE (seen).
func TestInotifyPerTrial(t *testing.T) {
	r := need(t)
	uids := testUIDs(t, 2_000_100_300)
	hogLease, err := uids.Lease()
	if err != nil {
		t.Fatal(err)
	}
	defer hogLease.Release()
	honestLease, err := uids.Lease()
	if err != nil {
		t.Fatal(err)
	}
	defer honestLease.Release()
	base := reachableDir(t)
	hogWS, honestWS := filepath.Join(base, "hog"), filepath.Join(base, "honest")
	os.Mkdir(hogWS, 0o755)
	os.Mkdir(honestWS, 0o755)
	hu, ou := hogLease.User, honestLease.User
	if os.Getenv("SWETOUCH_TEST_SHARED_UID") != "" {
		t.Log("both on swetouch's uid: this test should fail")
		hu, ou = HostUser{}, HostUser{}
	}
	spec := func(ws string, u HostUser) Spec {
		s := Spec{Writable: []string{ws}, Dir: ws}
		if u.UID != 0 {
			s.User = &u
		}
		return s
	}
	release := holdInotify(t, r, spec(hogWS, hu))
	defer release()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Errorf("swetouch's own inotify_init: %v", err)
	} else {
		unix.Close(fd)
	}
	out, err := run(t, r, spec(honestWS, ou), `/usr/bin/python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
print("inotify", fd if fd >= 0 else os.strerror(ctypes.get_errno()))
'`)
	if err != nil || !strings.Contains(out, "inotify 3") {
		t.Errorf("the honest sandbox's inotify_init: %v\n%s", err, out)
	}
}

// benchStart is a sandbox's start and end for `true`, as user (nil:
// swetouch's uid).
func benchStart(b *testing.B, user *HostUser) {
	r := &Runner{}
	if err := r.Check(); err != nil {
		b.Skip(err)
	}
	ws := b.TempDir()
	for p := ws; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o711)
	}
	for b.Loop() {
		s, err := r.Command(exec.Command("/bin/true"), Spec{Writable: []string{ws}, Dir: ws, User: user})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Start(); err != nil {
			b.Fatal(err)
		}
		if err := s.Wait(); err != nil {
			b.Fatal(err)
		}
		if user != nil && s.Usage().UID != user.UID {
			b.Fatalf("usage %+v", s.Usage())
		}
	}
}

func BenchmarkStartShared(b *testing.B) { benchStart(b, nil) }

func BenchmarkStartAsUID(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	lease, err := UIDRange{First: 2_000_100_500, Count: 2, Dir: b.TempDir()}.Lease()
	if err != nil {
		b.Fatal(err)
	}
	defer lease.Release()
	benchStart(b, &lease.User)
}

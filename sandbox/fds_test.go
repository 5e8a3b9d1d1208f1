package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// inherited opens dir as a descriptor without close-on-exec at fd (one
// the runtime does not hold), as a process that started swetouch may
// have left one.
func inherited(t *testing.T, dir string, fd int) {
	t.Helper()
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
		t.Fatalf("fd %d is in use", fd)
	}
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(d)
	if err := unix.Dup2(d, fd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
}

// A descriptor the test process holds without close-on-exec (beyond the
// sandbox's own 3 to 5) is not open inside, and nothing is reached
// through it.
func TestInheritedDescriptorsStayOut(t *testing.T) {
	r := need(t)
	host := t.TempDir()
	secret := filepath.Join(host, "task")
	os.MkdirAll(secret, 0o755)
	os.WriteFile(filepath.Join(secret, "solve.sh"), []byte("the answer\n"), 0o644)
	ws := filepath.Join(host, "ws")
	os.MkdirAll(ws, 0o755)
	for _, fd := range []int{501, 502, 777} {
		inherited(t, secret, fd)
	}
	out, err := run(t, r, Spec{Writable: []string{ws}, Dir: ws}, `for f in 501 502 777; do [ -e /proc/$$/fd/$f ] && echo "open: $f"; cat /proc/$$/fd/$f/solve.sh 2>/dev/null; done; echo end`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "open:") || strings.Contains(out, "answer") || !strings.Contains(out, "end") {
		t.Fatalf("an inherited descriptor reached the sandbox: %q", out)
	}
}

// Where close_range cannot mark descriptors, each open one is marked.
func TestCloexecEach(t *testing.T) {
	inherited(t, t.TempDir(), 778)
	if err := cloexecEach(); err != nil {
		t.Fatal(err)
	}
	flags, err := unix.FcntlInt(778, unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("fd 778: flags %d, %v", flags, err)
	}
}

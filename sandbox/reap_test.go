package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// processWith is a process whose command line holds s ("" for none).
func processWith(s string) string {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), s) {
			return p
		}
	}
	return ""
}

// TestStoppedPid1: a process inside ptrace-stops the sandbox's pid 1 and
// keeps working; the command exits. Pid 1 can pass nothing on, so bwrap
// would wait for ever (seen without the host's watch: the test timed
// out); the host kills pid 1 within pid1Grace, and nothing inside
// survives Wait.
func TestStoppedPid1(t *testing.T) {
	testsupport.Slow(t)
	r := need(t)
	// the seccomp filter refuses ptrace: taken away here, to reach the
	// host's kill, the barrier behind it
	r.unfiltered = true
	ws := t.TempDir()
	worker := fmt.Sprintf("sleep 1000.%d", os.Getpid())
	script := `python3 - <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
if os.fork() == 0:
    if libc.ptrace(16, 1, 0, 0) != 0:  # PTRACE_ATTACH
        print("attach failed", ctypes.get_errno(), flush=True)
        os._exit(1)
    os.waitpid(1, 0x40000000)  # __WALL: pid 1 has stopped
    os.write(w, b"stopped")
    os.execvp("sleep", "` + worker + `".split())
os.close(w)
print("pid 1", os.read(r, 10).decode(), flush=True)
sys.exit(3)
EOF`
	var out bytes.Buffer
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	s, err := r.Command(cmd, Spec{Writable: []string{ws}, Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(pid1Grace + 20*time.Second):
		s.Kill()
		<-waited
		t.Fatalf("the sandbox outlived its command by %s with pid 1 stopped\n%s", pid1Grace+20*time.Second, out.String())
	}
	if !strings.Contains(out.String(), "pid 1 stopped") {
		t.Fatalf("pid 1 was never stopped: %v\n%s", err, out.String())
	}
	if !errors.Is(err, ErrPid1Stuck) {
		t.Errorf("Wait: %v, want ErrPid1Stuck", err)
	}
	if p := processWith(worker); p != "" {
		t.Errorf("the worker outlived the sandbox: %s", p)
	}
}

// TestKill: Kill ends a sandbox and everything in it from the host, a
// process that left the command's group included.
func TestKill(t *testing.T) {
	r := need(t)
	ws := t.TempDir()
	worker := fmt.Sprintf("sleep 1001.%d", os.Getpid())
	ready := filepath.Join(ws, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/bash", "-c", `setsid `+worker+` </dev/null >/dev/null 2>&1 & echo up > `+ready+`; exec sleep 1002`)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	s, err := r.Command(cmd, Spec{Writable: []string{ws}, Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	// the worker has started once the command writes the FIFO
	up := make(chan error, 1)
	go func() { _, err := os.ReadFile(ready); up <- err }()
	select {
	case err := <-up:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-waited:
		t.Fatalf("the sandbox ended before its worker started: %v", err)
	}
	s.Kill()
	<-waited
	if p := processWith(worker); p != "" {
		t.Errorf("the worker outlived Kill: %s", p)
	}
}

package testbin

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// AwaitReady reads what an agent writes to the FIFO ready once it is
// ready, and fails the test, rather than hang, when proc (the swetouch
// that runs the agent) exits before anything was written.
func AwaitReady(t testing.TB, ready string, proc *os.Process) []byte {
	t.Helper()
	gone := make(chan struct{})
	if pfd, err := unix.PidfdOpen(proc.Pid, 0); err == nil {
		go func() {
			defer unix.Close(pfd)
			for {
				if _, err := unix.Poll([]unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}}, -1); err != unix.EINTR {
					break
				}
			}
			close(gone)
			// a writer of our own lets the blocked reader go
			if w, err := os.OpenFile(ready, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}()
	}
	r, err := os.OpenFile(ready, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := make([]byte, 4096)
	n, _ := r.Read(b)
	select {
	case <-gone:
		if n == 0 {
			t.Fatal("swetouch run exited before its agent said it was ready")
		}
	default:
	}
	return b[:n]
}

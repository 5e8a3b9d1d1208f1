package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// pid1 is the sandbox's pid 1 as the host holds it: a pidfd, opened from
// bwrap's status while it runs (so its pid cannot have been reused), kept
// until Wait has seen it gone. Killing it kills everything in the
// sandbox's PID namespace, whatever state pid 1 is in (a SIGKILL reaches
// a stopped or traced process).
type pid1 struct {
	ready chan struct{} // closed once pid and fd are known (fd -1: none)
	mu    sync.Mutex
	pid   int
	fd    int
}

func newPid1() *pid1 { return &pid1{ready: make(chan struct{}), fd: -1} }

// set records what bwrap reported; called once.
func (p *pid1) set(pid, fd int) {
	p.mu.Lock()
	p.pid, p.fd = pid, fd
	p.mu.Unlock()
	close(p.ready)
}

// dup is a pidfd of the caller's own (to close), or -1.
func (p *pid1) dup() int {
	<-p.ready
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd < 0 {
		return -1
	}
	fd, err := unix.FcntlInt(uintptr(p.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// kill sends pid 1 SIGKILL, if it is known and not yet waited for.
func (p *pid1) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd >= 0 {
		unix.PidfdSendSignal(p.fd, unix.SIGKILL, nil, 0)
	}
}

// end kills pid 1 and waits until it, and so every process of its
// namespace, is gone.
func (p *pid1) end() {
	<-p.ready
	p.kill()
	p.mu.Lock()
	fd := p.fd
	p.fd = -1
	p.mu.Unlock()
	if fd >= 0 {
		waitExit(fd)
	}
}

// pid1Grace is how long pid 1 has to pass on the command's exit before
// the host ends the sandbox itself: bwrap's pid 1 does it at once, unless
// something inside stopped it (ptrace, SIGSTOP), which would keep the
// rest of the namespace running after the agent exited.
const pid1Grace = 5 * time.Second

// ErrPid1Stuck is Wait's error when the command exited and the sandbox's
// pid 1 did not pass its exit on: the host killed the sandbox, and the
// command's exit status is lost.
var ErrPid1Stuck = fmt.Errorf("sandbox: the command exited and the sandbox's pid 1 did not pass on its exit within %s (stopped or traced from inside): killed from the host", pid1Grace)

// watch waits for the command (pid 1's one child) to exit, then gives pid
// 1 pid1Grace to end the sandbox before it kills pid 1 itself; waited is
// closed once bwrap has exited.
func (s *Sandboxed) watch(waited <-chan struct{}) {
	cmd := s.commandPidfd()
	if cmd < 0 {
		return // it has already gone, and pid 1 has reaped it
	}
	go func() {
		defer unix.Close(cmd)
		// the command's end (at the latest, the sandbox's)
		waitReadable(cmd)
		select {
		case <-waited:
		case <-time.After(pid1Grace):
			s.stuck.Store(true)
			s.pid.kill()
		}
	}()
}

// commandPid is the command inside (the one child of the sandbox's pid
// 1), or 0 when it has already exited.
func (s *Sandboxed) commandPid() int {
	<-s.pid.ready
	s.pid.mu.Lock()
	pid := s.pid.pid
	s.pid.mu.Unlock()
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	child, _ := strconv.Atoi(f[0])
	return child
}

// commandPidfd is a pidfd on the command inside, or -1 when it has
// already exited.
func (s *Sandboxed) commandPidfd() int {
	child := s.commandPid()
	if child <= 0 {
		return -1
	}
	fd, err := unix.PidfdOpen(child, 0)
	if err != nil {
		return -1
	}
	return fd
}

// waitReadable waits until pidfd fd is readable: its process exited.
func waitReadable(fd int) {
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err != unix.EINTR {
			return
		}
	}
}

// Kill ends the sandbox from the host: its pid 1 and, with it, every
// process inside (a timeout, an interrupt). Wait still returns.
func (s *Sandboxed) Kill() {
	s.pid.kill()
	if s.Cmd.Process != nil {
		s.Cmd.Process.Kill()
	}
}

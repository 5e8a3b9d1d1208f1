// A sandboxed process: started, its pid 1 found by pidfd, waited on, and
// a failure to make the sandbox told apart from the command's own.

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
	"sync/atomic"

	"golang.org/x/sys/unix"
)

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

// SetupError is the error of a sandbox that bwrap could not make: the
// command inside never started, so its exit says nothing about it.
type SetupError struct {
	Exit int
	// Err is what failed on swetouch's side (a relay, the move into the
	// control groups), if that was it.
	Err error
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

//go:build linux

package rawfd

import (
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Unpolled takes the socket f out of Go's poller: it returns a file on a
// blocking duplicate of f's descriptor (f itself is closed) and a writer
// that sends to it without waiting, for a peer that is told lines and
// seldom asked anything (a relay telling its hub of calls nothing can
// fire on).
//
// While a socket is in the poller, every time its peer reads what was
// sent, the kernel signals room to write, the poller always asks to hear
// of it, and the process's waiting thread wakes for nothing: on this
// project's machines a wake-up per line told, a tenth of a relayed call's
// CPU. Out of the poller, a send that finds room (nearly all) is one raw
// system call; one that does not goes through the file, which waits in
// the kernel, as do the file's reads.
func Unpolled(f *os.File) (*os.File, io.Writer, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	nfd := -1
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		d, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			dupErr = err
			return
		}
		// the duplicate shares the open file, whose waits are the
		// kernel's from now on: nothing uses f again
		nfd, dupErr = d, syscall.SetNonblock(d, false)
	}); err != nil {
		return nil, nil, err
	}
	if dupErr != nil {
		if nfd >= 0 {
			syscall.Close(nfd)
		}
		return nil, nil, &os.SyscallError{Syscall: "dup", Err: dupErr}
	}
	f.Close() // the poller forgets it
	nf := os.NewFile(uintptr(nfd), f.Name())
	if !noWaitWrites {
		return nf, nf, nil // race builds: the file's writes, which the detector sees
	}
	nrc, err := nf.SyscallConn()
	if err != nil {
		nf.Close()
		return nil, nil, err
	}
	return nf, newSender(nrc, nf), nil
}

// sender writes a blocking socket with sends that do not wait
// (MSG_DONTWAIT), as raw system calls, and through the file whatever a
// send did not take: the file's write waits for room, or fails the way a
// write fails (a peer gone: EPIPE). Its callback is bound once (see op).
type sender struct {
	mu sync.Mutex
	rc syscall.RawConn
	f  *os.File
	p  []byte
	n  int
	fn func(fd uintptr)
}

func newSender(rc syscall.RawConn, f *os.File) *sender {
	s := &sender{rc: rc, f: f}
	s.fn = s.sendSome
	return s
}

// sendSome sends what the socket has room for.
func (s *sender) sendSome(fd uintptr) {
	for s.n < len(s.p) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&s.p[s.n])), uintptr(len(s.p)-s.n),
			syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return
		}
		s.n += int(r)
	}
}

func (s *sender) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p, s.n = p, 0
	err := s.rc.Control(s.fn)
	n := s.n
	s.p = nil
	if err != nil {
		return 0, err
	}
	if n == len(p) {
		return n, nil
	}
	m, err := s.f.Write(p[n:])
	return n + m, err
}

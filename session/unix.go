package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// UnixListener is a hub's Unix socket served by threads that wait in the
// kernel (in accept and read) rather than in Go's poller. A shell shim's
// begin and end reach a hub that has sat idle while the command ran; a
// goroutine woken by the poller answered them in 170 and 55 µs on this
// project's machines, a thread woken by the kernel in about 30 (what a C
// server takes), and the shim pays for both on every command. It costs a
// thread per connected client, and clients are few: the shims of the
// commands running now and a relay or two.
type UnixListener struct {
	path string
	fd   int

	mu      sync.Mutex
	closed  bool
	serving bool
}

// ListenUnix makes the socket at path.
func ListenUnix(path string) (*UnixListener, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("bind %s: %w", path, err)
	}
	if err := syscall.Listen(fd, 128); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	return &UnixListener{path: path, fd: fd}, nil
}

// Path is where the socket is.
func (l *UnixListener) Path() string { return l.path }

// Close stops ServeUnix from taking new clients and removes the socket
// file; the socket itself is closed when ServeUnix returns (at once when
// it is not running).
func (l *UnixListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	os.Remove(l.path) // as net.UnixListener does
	if !l.serving {
		return syscall.Close(l.fd)
	}
	// wakes the threads in accept (a close would not)
	return syscall.Shutdown(l.fd, syscall.SHUT_RDWR)
}

func (l *UnixListener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// ServeUnix answers clients on l until ctx ends or l is closed, as Serve
// does. A thread waits in accept and serves the client it takes itself,
// so a shim's begin is answered without a hand-off between threads; it
// starts the next one waiting in accept once it has answered a line, or
// before it would wait for one (a client that connects and says nothing
// holds up no one). Starting that goroutine first cost the begin about 20
// µs here.
func (h *Hub) ServeUnix(ctx context.Context, l *UnixListener) error {
	l.mu.Lock()
	if l.closed || l.serving {
		l.mu.Unlock()
		return errors.New("listener closed or already served")
	}
	l.serving = true
	l.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()

	var wg sync.WaitGroup
	var errMu sync.Mutex
	var acceptErr error
	var accept func()
	accept = func() {
		defer wg.Done()
		var backoff time.Duration
		for {
			waited := time.Now()
			fd, _, err := syscall.Accept4(l.fd, syscall.SOCK_CLOEXEC)
			if err == nil {
				if time.Since(waited) > staleAfter {
					// the processor this thread comes back to was last
					// scheduled before the wait: the runtime's monitor
					// would take it for a goroutine running on for 10 ms
					// and preempt the begin as it is served, which then
					// went on on another thread; a yield now schedules
					// it afresh, on this one
					runtime.Gosched()
				}
				h.serveFD(ctx, &fdConn{fd: fd, spare: func() { wg.Add(1); go accept() }})
				return
			}
			if l.isClosed() {
				return
			}
			if err == syscall.EINTR || err == syscall.ECONNABORTED {
				continue
			}
			if err == syscall.EMFILE || err == syscall.ENFILE || err == syscall.ENOBUFS || err == syscall.ENOMEM {
				// out of descriptors or memory for now: the clients wait
				// in the listen queue until some are freed (as net/http
				// does)
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			errMu.Lock()
			acceptErr = fmt.Errorf("accept %s: %w", l.path, err)
			errMu.Unlock()
			return
		}
	}
	wg.Add(1)
	accept()
	wg.Wait()
	l.mu.Lock()
	l.closed, l.serving = true, false // a later Close has nothing to do
	syscall.Close(l.fd)
	l.mu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	return acceptErr
}

// staleAfter is how long a wait in accept makes the thread's processor
// look, to the runtime's monitor, like one a goroutine has run on without
// a break (it preempts at 10 ms; serving a begin takes well under one).
const staleAfter = 5 * time.Millisecond

// serveFD serves one client on a blocking descriptor, hung up on when ctx
// ends.
func (h *Hub) serveFD(ctx context.Context, c *fdConn) {
	defer c.startSpare() // a client gone before either
	stop := context.AfterFunc(ctx, c.hangUp)
	defer stop()
	defer c.close()
	h.serveConn(ctx, c)
}

// fdConn is a connected socket read and written with blocking system
// calls.
type fdConn struct {
	fd int
	// spare starts the next thread waiting in accept; called once, by
	// startSpare, before the first read that waits or after the first
	// answer
	spare func()
	// stays is set once the client has stayed through a yield: a relay or
	// a persistent shell, which only a shim's way of going would be
	// waited for again (one more wake-up of the hub for every call)
	stays bool
	// polled is the descriptor as Go's poller watches it, once the client
	// stays (waitInPoller); its reads and writes still go to fd
	polled   *os.File
	pollConn syscall.RawConn

	readState
}

// readState is what a connection's reader says of itself, so that others
// can tell whether its client has said something not taken yet (unread).
type readState struct {
	mu     sync.Mutex
	closed bool
	// waiting is set while the thread waits for the client with nothing
	// taken; it is cleared, under mu, before anything is
	waiting bool
}

func (s *readState) setWaiting(w bool) {
	s.mu.Lock()
	s.waiting = w
	s.mu.Unlock()
}

// unread reports whether the client has said something the hub has not
// taken yet: whenever the connection's thread is not waiting for it (it
// has a line in hand, or in its buffer), or when something has come
// (arrived, which looks at the socket) that the waiting thread has not
// woken for yet. Holding mu keeps the thread from taking it meanwhile. A
// connection gone has nothing.
func (s *readState) unread(arrived func() bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	return !s.waiting || arrived()
}

// whileOpen runs f unless the connection is closed, and keeps it open
// meanwhile.
func (s *readState) whileOpen(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		f()
	}
}

// closeWith marks the connection closed and closes it with f.
func (s *readState) closeWith(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	f()
}

func (c *fdConn) startSpare() {
	if c.spare != nil {
		c.spare()
		c.spare = nil
	}
}

// Read and Write try the socket without blocking first, as raw system
// calls: a call that may block must tell the scheduler, and that woke the
// runtime's monitor thread, when asleep, every time (about 20 µs on the
// answer's path here). Read waits in poll, not in read, so that nothing is
// taken while the connection says it waits (see unread).
func (c *fdConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.pollConn != nil {
		return c.pollRead(p)
	}
	for {
		n, err := rawIO(syscall.SYS_RECVFROM, c.fd, p, syscall.MSG_DONTWAIT)
		switch {
		case err == nil && n == 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case err != syscall.EAGAIN && err != syscall.EINTR:
			return 0, err
		}
		c.startSpare() // about to wait
		c.setWaiting(true)
		fds := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLIN | unix.POLLRDHUP}}
		_, err = unix.Ppoll(fds, nil, nil)
		c.setWaiting(false)
		if err != nil && err != unix.EINTR {
			return 0, err
		}
	}
}

func (c *fdConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		// MSG_NOSIGNAL: a client gone is an error here, not a SIGPIPE
		n, err := rawIO(syscall.SYS_SENDTO, c.fd, p[written:], syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
		if err == syscall.EAGAIN && c.pollConn != nil {
			n, err = c.pollWrite(p[written:]) // a full buffer: wait, in the poller
		} else if err == syscall.EAGAIN {
			n, err = syscall.SendmsgN(c.fd, p[written:], nil, nil, syscall.MSG_NOSIGNAL) // a full buffer: wait
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, err
		}
		written += n
	}
	c.startSpare()
	return written, nil
}

// rawIO is recvfrom or sendto with no address as a raw system call; the
// flags must hold MSG_DONTWAIT, so that it cannot block.
func rawIO(trap uintptr, fd int, p []byte, flags int) (int, error) {
	n, _, errno := syscall.RawSyscall6(trap, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), uintptr(flags), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func (c *fdConn) unread() bool { return c.readState.unread(func() bool { return pollNow(c.fd) }) }

// pollNow reports whether fd has something to read, or was hung up on,
// without waiting (a raw system call: with a zero timeout it cannot block).
func pollNow(fd int) bool {
	fds := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLRDHUP}}
	var now unix.Timespec
	n, _, errno := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&now)), 0, 0, 0)
	return errno == 0 && n > 0
}

// hangUp wakes a thread blocked reading the socket; the descriptor stays
// the owner's to close.
func (c *fdConn) hangUp() { c.whileOpen(func() { syscall.Shutdown(c.fd, syscall.SHUT_RDWR) }) }

func (c *fdConn) close() {
	c.closeWith(func() {
		if c.polled != nil {
			c.polled.Close() // its own descriptor, and out of the poller
		}
		syscall.Close(c.fd)
	})
}

// waitInPoller has the connection wait for its client in Go's poller
// from now on, rather than in the kernel. A client that stays (a relay)
// sends a line or two per tool call, each after a wait; a thread waiting
// in a system call holds a P, which the runtime's monitor thread takes
// back, and it polls every 20 µs while any does: a third of the hub's CPU
// per relayed call on this project's machines. A shim's connection,
// answered once and gone, keeps the kernel's quicker wake-up.
func (c *fdConn) waitInPoller() {
	fd, err := syscall.Dup(c.fd)
	if err != nil {
		return
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "hub client")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return
	}
	c.polled, c.pollConn = f, rc
}

// pollRead is Read waiting in the poller.
func (c *fdConn) pollRead(p []byte) (int, error) {
	var n int
	var err error
	perr := c.pollConn.Read(func(uintptr) bool {
		c.setWaiting(false) // before anything is taken
		for {
			n, err = rawIO(syscall.SYS_RECVFROM, c.fd, p, syscall.MSG_DONTWAIT)
			if err != syscall.EINTR {
				break
			}
		}
		if err == syscall.EAGAIN {
			c.startSpare() // about to wait
			c.setWaiting(true)
			return false
		}
		return true
	})
	switch {
	case perr != nil:
		return 0, perr
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// pollWrite writes what a full socket buffer held back, waiting for room
// in the poller.
func (c *fdConn) pollWrite(p []byte) (int, error) {
	var n int
	var err error
	perr := c.pollConn.Write(func(uintptr) bool {
		n, err = rawIO(syscall.SYS_SENDTO, c.fd, p, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
		return err != syscall.EAGAIN
	})
	if perr != nil {
		return 0, perr
	}
	return n, err
}

// yield keeps the thread off the CPU while a client that is going away
// goes: it waits, up to 200 µs, for the client to hang up (or say more),
// and a client that hung up, up to a millisecond in all, for its process
// to be gone (a pidfd, from the socket's peer credentials). A client that
// stays (a relay, a persistent shell) costs the 200 µs once: it is not
// waited for again.
// An answer to a Unix socket wakes its reader on the writer's CPU, on the
// kernel's bet that the writer now sleeps; a hub that went on with the
// command's recording there kept a shim from its answer (160 µs against
// 60 here). And the shim's exit is the agent's to wait for: the hub woken
// by the shim hanging up took the CPU its exit needed (the agent saw it
// 70 to 100 µs later).
func (c *fdConn) yield() {
	if c.stays {
		return
	}
	start := time.Now()
	fds := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLIN | unix.POLLRDHUP}}
	if !waitFor(fds, start.Add(hangUpWait)) || fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP) == 0 {
		c.stays = true
		c.waitInPoller()
		return // it stays, or says more: serve it
	}
	cred, err := unix.GetsockoptUcred(c.fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || cred.Pid <= 0 {
		return
	}
	pidfd, err := unix.PidfdOpen(int(cred.Pid), 0)
	if err != nil {
		return // gone already
	}
	defer unix.Close(pidfd)
	waitFor([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, start.Add(time.Millisecond))
}

// hangUpWait is how long yield waits for a client to hang up.
const hangUpWait = 200 * time.Microsecond

// waitFor polls fds until one is ready (true) or the deadline passes.
func waitFor(fds []unix.PollFd, deadline time.Time) bool {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		n, err := unix.Ppoll(fds, &ts, nil)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}

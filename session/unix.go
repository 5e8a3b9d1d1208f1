package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
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
// does. A thread waits in accept; the one that takes a client starts the
// next one waiting, then reads that client's first line itself, so that
// line is answered without a hand-off between threads.
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
		for {
			fd, _, err := syscall.Accept4(l.fd, syscall.SOCK_CLOEXEC)
			if err == nil {
				wg.Add(1)
				go accept()
				h.serveFD(ctx, fd)
				return
			}
			if l.isClosed() {
				return
			}
			if err == syscall.EINTR || err == syscall.ECONNABORTED {
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
	syscall.Close(l.fd)
	l.mu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	return acceptErr
}

// serveFD serves one client on a blocking descriptor, hung up on when ctx
// ends.
func (h *Hub) serveFD(ctx context.Context, fd int) {
	c := &fdConn{fd: fd}
	stop := context.AfterFunc(ctx, c.hangUp)
	defer stop()
	defer c.close()
	h.serveConn(ctx, c)
}

// fdConn is a connected socket read and written with blocking system
// calls.
type fdConn struct {
	fd     int
	mu     sync.Mutex
	closed bool
}

func (c *fdConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *fdConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		// MSG_NOSIGNAL: a client gone is an error here, not a SIGPIPE
		n, err := syscall.SendmsgN(c.fd, p[written:], nil, nil, syscall.MSG_NOSIGNAL)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// hangUp wakes a thread blocked reading the socket; the descriptor stays
// the owner's to close.
func (c *fdConn) hangUp() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

func (c *fdConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	syscall.Close(c.fd)
}

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// WithClients limits the hub's clients to processes running one of exes
// (the shell shim, swetouch itself for its hooks and relays), checked by
// the peer's credentials on the socket: a script of the agent's own that
// sent begin and held its connection open would otherwise keep every
// native edit from being taken. Without it any client is served.
func WithClients(exes ...string) Option {
	return func(h *Hub) {
		for _, e := range exes {
			if e == "" {
				continue
			}
			if r, err := filepath.EvalSymlinks(e); err == nil {
				e = r
			}
			if !slices.Contains(h.clients, e) {
				h.clients = append(h.clients, e)
			}
		}
	}
}

// peered is a connection whose peer's credentials can be read.
type peered interface{ peerFD(func(fd int)) }

func (c *fdConn) peerFD(f func(int)) { f(c.fd) }

func (c *trackedConn) peerFD(f func(int)) {
	if c.raw != nil {
		c.raw.Control(func(fd uintptr) { f(int(fd)) })
	}
}

// admit says why the client on c may not act on the hub (nil: it may).
// The kernel records the peer when it connects; its executable is read
// from /proc, in the hub's own PID namespace, so a sandboxed client is
// seen as the host sees it.
func (h *Hub) admit(c any) error {
	if len(h.clients) == 0 {
		return nil
	}
	p, ok := c.(peered)
	if !ok {
		return nil // an in-process pipe: not the agent's
	}
	var err error = fmt.Errorf("refused: the client's credentials cannot be read")
	p.peerFD(func(fd int) {
		cred, e := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if e != nil {
			return
		}
		exe, e := os.Readlink(fmt.Sprintf("/proc/%d/exe", cred.Pid))
		if e != nil {
			err = fmt.Errorf("refused: the client (pid %d) cannot be looked at: %v", cred.Pid, e)
			return
		}
		if !slices.Contains(h.clients, exe) {
			err = fmt.Errorf("refused: only swetouch's shim, hooks and relays may act on the session, not %s", exe)
			return
		}
		err = nil
	})
	return err
}

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"unsafe"

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
		pid, e := peerPid(fd)
		if e != nil {
			return
		}
		exe, e := exeOf(pid)
		if e != nil {
			err = fmt.Errorf("refused: the client (pid %d) cannot be looked at: %v", pid, e)
			return
		}
		if !slices.Contains(h.clients, exe) && !h.clientFile(pid) {
			err = fmt.Errorf("refused: only swetouch's shim, hooks and relays may act on the session, not %s", exe)
			return
		}
		err = nil
	})
	return err
}

// peerPid and exeOf make their system calls raw: neither can block, and
// a call made the usual way, the first after the hub sat idle between
// commands, woke the runtime's monitor thread (admission took 17 µs of
// each shim's begin here, most of it that).

// peerPid is the process at the other end of a Unix socket, as the kernel
// recorded it at connect (SO_PEERCRED).
func peerPid(fd int) (int, error) {
	var cred unix.Ucred
	size := uint32(unsafe.Sizeof(cred))
	_, _, errno := syscall.RawSyscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERCRED,
		uintptr(unsafe.Pointer(&cred)), uintptr(unsafe.Pointer(&size)), 0)
	if errno != 0 {
		return 0, errno
	}
	return int(cred.Pid), nil
}

// exeOf is the executable process pid runs (/proc/PID/exe).
func exeOf(pid int) (string, error) {
	path := append(strconv.AppendInt([]byte("/proc/"), int64(pid), 10), "/exe\x00"...)
	var buf [512]byte
	atCwd := unix.AT_FDCWD // a variable: the constant, negative, is no uintptr
	n, _, errno := syscall.RawSyscall6(syscall.SYS_READLINKAT, uintptr(atCwd), uintptr(unsafe.Pointer(&path[0])),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	switch {
	case errno != 0:
		return "", &os.PathError{Op: "readlink", Path: string(path[:len(path)-1]), Err: errno}
	case int(n) == len(buf):
		return os.Readlink(string(path[:len(path)-1])) // longer than the buffer: the usual way
	}
	return string(buf[:n]), nil
}

// clientFile reports whether process pid runs one of the clients' files
// under another name: the shim a sandbox binds over /bin/sh and
// /bin/bash, which /proc names by where it is mounted there. The file is
// compared by identity (/proc/PID/exe opens the very file it runs).
func (h *Hub) clientFile(pid int) bool {
	var st unix.Stat_t
	if unix.Stat("/proc/"+strconv.Itoa(pid)+"/exe", &st) != nil {
		return false
	}
	for _, c := range h.clients {
		var cs unix.Stat_t
		if unix.Stat(c, &cs) == nil && cs.Dev == st.Dev && cs.Ino == st.Ino {
			return true
		}
	}
	return false
}

//go:build linux

package rawfd

import (
	"io"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawConner is what a descriptor Go's poller watches offers (an *os.File,
// the pipes of os/exec, a net.Conn).
type rawConner interface {
	SyscallConn() (syscall.RawConn, error)
}

// rawConnOf returns c's raw connection, and whether its descriptor is
// in non-blocking mode (so that a raw call on it cannot block the thread).
func rawConnOf(c any) (rc syscall.RawConn, nonBlocking, ok bool) {
	rcer, ok := c.(rawConner)
	if !ok {
		return nil, false, false
	}
	rc, err := rcer.SyscallConn()
	if err != nil {
		return nil, false, false
	}
	var flags uintptr
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		flags, _, errno = syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}); err != nil || errno != 0 {
		return nil, false, false
	}
	return rc, flags&syscall.O_NONBLOCK != 0, true
}

// Reader returns r read quietly when it is a non-blocking descriptor the
// poller watches, else r itself.
func Reader(r io.Reader) io.Reader {
	if rc, nb, ok := rawConnOf(r); ok && nb {
		return reader{newReadOp(rc)}
	}
	return r
}

// Writer returns w written quietly when it is a descriptor: a
// non-blocking one with raw writes, waiting in the poller when full; a
// regular file with raw writes (regularFile); any other blocking one
// (the relay's inherited stdout) with writes asked not to
// wait (RWF_NOWAIT), and through w itself whenever such a write cannot
// finish at once or fails, so that w keeps its own ways (a full pipe
// waits, a broken stdout ends the process by SIGPIPE). Anything else is
// w itself.
func Writer(w io.Writer) io.Writer {
	rc, nb, ok := rawConnOf(w)
	switch {
	case !ok:
		return w
	case nb:
		return writer{newWriteOp(rc)}
	case !noWaitWrites:
		return w
	case isRegular(rc):
		return &regularFile{newWriteOp(rc), w}
	}
	q := &noWait{rc: rc, w: w}
	q.fn = q.pwrite
	return q
}

// reader and writer keep Reader's result from being a Writer, and the
// other way round: each gives only what it was asked for.
type reader struct{ o *op }

func (r reader) Read(p []byte) (int, error) { return r.o.read(p) }

type writer struct{ o *op }

func (w writer) Write(p []byte) (int, error) { return w.o.write(p) }

// noWait writes a blocking descriptor with pwritev2(RWF_NOWAIT), and
// through w what that cannot write at once.
type noWait struct {
	rc syscall.RawConn
	w  io.Writer
	// unsupported is set once the kernel or the file refused
	// RWF_NOWAIT: every write goes through w from then on
	unsupported bool

	mu    sync.Mutex // one write at a time: the call's state below
	p     []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr)
}

// pwrite writes q.p with pwritev2(RWF_NOWAIT) once: q.fn, bound once
// (see op).
func (q *noWait) pwrite(fd uintptr) {
	for {
		iov := syscall.Iovec{Base: unsafe.SliceData(q.p)}
		iov.SetLen(len(q.p))
		r, _, e := syscall.RawSyscall6(sysPwritev2, fd, uintptr(unsafe.Pointer(&iov)), 1, ^uintptr(0), ^uintptr(0), rwfNoWait)
		if e == syscall.EINTR {
			continue
		}
		q.n, q.errno = int(r), e
		return
	}
}

func (q *noWait) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.unsupported || len(p) == 0 {
		return q.w.Write(p)
	}
	q.p, q.n, q.errno = p, 0, 0
	q.rc.Control(q.fn)
	n, errno := q.n, q.errno
	q.p = nil
	switch errno {
	case 0:
		if n == len(p) {
			return n, nil
		}
	case syscall.EOPNOTSUPP, syscall.ENOSYS, syscall.EINVAL:
		q.unsupported = true
		n = 0
	default:
		n = 0 // EAGAIN, EPIPE and the rest: w waits, or fails its own way
	}
	m, err := q.w.Write(p[n:])
	return n + m, err
}

// isRegular says whether rc is a regular file's descriptor.
func isRegular(rc syscall.RawConn) bool {
	var st syscall.Stat_t
	var err error
	if cerr := rc.Control(func(fd uintptr) { err = syscall.Fstat(int(fd), &st) }); cerr != nil || err != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFREG
}

// regularFile writes a regular file with raw write(2). A write to the
// page cache waits for no disk (but where writeback throttles it, rarely
// and briefly), so the scheduler need not hear of it; through the file
// itself, each write woke the monitor thread of a hub that had gone idle
// between events, and a hub recording a run's trajectory paid that on
// every event: some 55 µs of CPU per event on this project's machines,
// more than the rest of its work on a relay's call. (ext4 refuses
// RWF_NOWAIT for such writes.) What a raw write cannot do, a full disk
// say, goes through w, which reports it its own way.
type regularFile struct {
	o *op // writeSome's raw writes (a regular file never answers EAGAIN)
	w io.Writer
}

func (f *regularFile) Write(p []byte) (int, error) {
	n, errno, err := f.o.do(f.o.rc.Write, p)
	if err == nil && errno == 0 && n == len(p) {
		return n, nil
	}
	m, err := f.w.Write(p[n:]) // the rest, or why it cannot be written
	return n + m, err
}

// pwritev2 and its flag, which package syscall lacks; the offset -1 (both
// halves) writes at the file's position, as write does.
const (
	sysPwritev2 = unix.SYS_PWRITEV2
	rwfNoWait   = unix.RWF_NOWAIT
)

// The poller calls back into a read or a write; a closure made for each
// call would be an allocation per message (cold, each a cache miss on
// fresh memory), so each direction keeps one callback, bound once, and
// the call's state beside it, under a lock of its own.

// op is one direction's call in progress: its buffer and its outcome.
type op struct {
	mu    sync.Mutex
	rc    syscall.RawConn
	p     []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

func newReadOp(rc syscall.RawConn) *op {
	o := &op{rc: rc}
	o.fn = o.readOnce
	return o
}

func newWriteOp(rc syscall.RawConn) *op {
	o := &op{rc: rc}
	o.fn = o.writeSome
	return o
}

// readOnce reads what is there; false asks the poller to wait for more.
func (o *op) readOnce(fd uintptr) bool {
	for {
		r, e := sysRead(fd, o.p)
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // the poller waits for it
		}
		o.n, o.errno = r, e
		return true
	}
}

// writeSome writes what it can; false asks the poller to wait for room.
func (o *op) writeSome(fd uintptr) bool {
	for o.n < len(o.p) {
		r, e := sysWrite(fd, o.p[o.n:])
		switch e {
		case 0:
			o.n += r
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // full: the poller waits for room
		default:
			o.errno = e
			return true
		}
	}
	return true
}

// do runs one call of o's callback through wait (the raw connection's
// Read or Write) on p, and returns what it did.
func (o *op) do(wait func(func(uintptr) bool) error, p []byte) (n int, errno syscall.Errno, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.p, o.n, o.errno = p, 0, 0
	err = wait(o.fn)
	n, errno = o.n, o.errno
	o.p = nil
	return n, errno, err
}

func (o *op) read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno, err := o.do(o.rc.Read, p)
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (o *op) write(p []byte) (int, error) {
	n, errno, err := o.do(o.rc.Write, p)
	if err == nil && errno != 0 {
		err = errno
	}
	return n, err
}

package watch

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// inotify is the Linux source: the kernel's inotify queue, read two ways.
// A background reader takes events as they come (the owner's cue for
// native edits), and flush drains the queue in the caller's goroutine.
// The kernel queues a change's event before the system call that made it
// returns, so a drain that reaches an empty queue has seen every change
// made before it began: Sync needs no fence file and no wait for another
// goroutine, which on this project's machines cost a command 60 to 100 µs
// of scheduler wake-ups at each end (fsnotify delivers through a goroutine
// and a channel, so it cannot offer this).
type inotify struct {
	file *os.File // non-blocking; the background reader waits in the runtime's poller
	raw  syscall.RawConn
	fd   int
	to   handler
	done chan struct{}

	mu  sync.Mutex // one drain at a time, so events are handled in the kernel's order
	buf []byte
	// the last rename's first half, waiting for its second (under mu)
	movedFrom  string
	moveCookie uint32

	flushMu  sync.Mutex // one flush at a time: its callback's outcome
	flushErr error
	flushFn  func(fd uintptr)

	dirsMu sync.Mutex
	dirs   map[int32]string // watch descriptor to directory
}

// watchMask is the events that can change a file's content or existence.
// IN_ATTRIB (a chmod) is left out: content is what is compared.
const watchMask = syscall.IN_CREATE | syscall.IN_MODIFY | syscall.IN_DELETE | syscall.IN_MOVED_FROM |
	syscall.IN_MOVED_TO | syscall.IN_ONLYDIR | syscall.IN_EXCL_UNLINK

func newSource(to handler) (source, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	raw, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &inotify{file: f, raw: raw, fd: fd, to: to, done: make(chan struct{}),
		buf: make([]byte, 64<<10), dirs: map[int32]string{}}
	s.flushFn = func(fd uintptr) { s.flushErr = s.drain(int(fd)) }
	go s.run()
	return s, nil
}

func (s *inotify) add(dir string) error {
	var wd int
	var err error
	cerr := s.raw.Control(func(fd uintptr) { wd, err = syscall.InotifyAddWatch(int(fd), dir, watchMask) })
	if cerr != nil {
		return cerr
	}
	if err == syscall.ENOSPC {
		return fmt.Errorf("watching %s: more directories than this system lets one user watch (raise the sysctl fs.inotify.max_user_watches): %w", dir, err)
	}
	if err != nil {
		return &os.PathError{Op: "inotify_add_watch", Path: dir, Err: err}
	}
	// a directory watched again (moved, then seen at its new name) keeps
	// its descriptor: the new name replaces the old
	s.dirsMu.Lock()
	s.dirs[int32(wd)] = dir
	s.dirsMu.Unlock()
	return nil
}

// run is the background reader: woken by the poller when events are
// queued, it drains them, until the file is closed.
func (s *inotify) run() {
	defer close(s.done)
	s.raw.Read(func(fd uintptr) bool {
		if err := s.drain(int(fd)); err != nil {
			s.to.fail(err)
		}
		return false // wait for more
	})
}

// flush drains the queue in the caller's goroutine. Its callback is
// bound once (newSource): a closure made for each would be an allocation
// per barrier, two per command.
func (s *inotify) flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.flushErr = nil
	if cerr := s.raw.Control(s.flushFn); cerr != nil {
		return errors.New("watcher closed")
	}
	return s.flushErr
}

// drain reads and handles queued events until the queue is empty.
func (s *inotify) drain(fd int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		n, err := readNow(fd, s.buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return nil
		case err != nil:
			return fmt.Errorf("reading inotify: %w", err)
		case n <= 0:
			return nil
		}
		s.handle(s.buf[:n])
	}
}

// handle hands a read's events on: the name under its directory, and
// what happened to it.
func (s *inotify) handle(b []byte) {
	const header = syscall.SizeofInotifyEvent
	for len(b) >= header {
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		size := int(binary.NativeEndian.Uint32(b[12:]))
		if header+size > len(b) {
			return // the kernel never splits an event; a short one is garbage
		}
		b0 := b
		name := b[header : header+size]
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		b = b[header+size:]
		if mask&syscall.IN_Q_OVERFLOW != 0 {
			s.to.fail(ErrEventsLost)
			continue
		}
		s.dirsMu.Lock()
		dir, ok := s.dirs[wd]
		if mask&syscall.IN_IGNORED != 0 {
			delete(s.dirs, wd) // the directory is gone, or unwatched
		}
		s.dirsMu.Unlock()
		if !ok || len(name) == 0 {
			continue // an event on the directory itself: its parent reports it
		}
		var o op
		switch {
		case mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0:
			o = opCreate
		case mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) != 0:
			o = opRemove
		case mask&syscall.IN_MODIFY != 0:
			o = opWrite
		default:
			continue
		}
		if mask&syscall.IN_ISDIR != 0 {
			o |= opDir
		}
		path := dir + "/" + string(name)
		s.to.event(path, o)
		// a rename's two halves share a cookie and come one after the
		// other in the queue
		cookie := binary.NativeEndian.Uint32(b0[8:])
		switch {
		case mask&syscall.IN_MOVED_FROM != 0:
			s.movedFrom, s.moveCookie = path, cookie
		case mask&syscall.IN_MOVED_TO != 0 && s.movedFrom != "" && s.moveCookie == cookie:
			s.to.moved(s.movedFrom, path, mask&syscall.IN_ISDIR != 0)
			s.movedFrom = ""
		}
		if mask&(syscall.IN_MOVED_FROM|syscall.IN_ISDIR) == syscall.IN_MOVED_FROM|syscall.IN_ISDIR {
			s.forget(path)
		}
	}
}

// forget stops watching a directory moved away and the ones below it: the
// kernel would go on reporting them, wherever they went, under their old
// names. One moved within the workspace is watched again at its new name
// (its IN_MOVED_TO comes next).
func (s *inotify) forget(dir string) {
	s.dirsMu.Lock()
	defer s.dirsMu.Unlock()
	for wd, p := range s.dirs {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			syscall.InotifyRmWatch(s.fd, uint32(wd))
			delete(s.dirs, wd)
		}
	}
}

func (s *inotify) close() error {
	err := s.file.Close()
	<-s.done
	return err
}

// readNow reads a non-blocking descriptor as a raw system call: one that
// cannot block need not tell the scheduler, and telling it woke the
// runtime's monitor thread, when asleep, on every call (26 µs a drain,
// against 2, with the hub idle between commands).
func readNow(fd int, p []byte) (int, error) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

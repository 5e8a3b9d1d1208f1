//go:build !linux

package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// fsnotifySource is the source where there is no inotify. fsnotify
// delivers events from a goroutine, so a barrier renames a fence file in a
// directory of its own and waits for that event: the events are in order,
// so everything before it has been handed on.
type fsnotifySource struct {
	fsw   *fsnotify.Watcher
	to    handler
	fence string
	done  chan struct{}

	mu      sync.Mutex
	waiters map[string]chan struct{}
	// fenceMu orders barriers: each renames fence-<fences> to the next
	fenceMu sync.Mutex
	fences  int
}

func newSource(to handler) (source, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	fence, err := os.MkdirTemp("", "swetouch-fence-")
	if err == nil {
		err = os.WriteFile(filepath.Join(fence, "fence-0"), nil, 0o600)
	}
	if err == nil {
		err = fsw.Add(fence)
	}
	if err != nil {
		fsw.Close()
		os.RemoveAll(fence)
		return nil, err
	}
	s := &fsnotifySource{fsw: fsw, to: to, fence: fence, done: make(chan struct{}), waiters: map[string]chan struct{}{}}
	go s.run()
	return s, nil
}

func (s *fsnotifySource) add(dir string) error { return s.fsw.Add(dir) }

func (s *fsnotifySource) run() {
	defer close(s.done)
	for {
		select {
		case ev, ok := <-s.fsw.Events:
			if !ok {
				return
			}
			if filepath.Dir(ev.Name) == s.fence {
				s.mu.Lock()
				if ch, ok := s.waiters[filepath.Base(ev.Name)]; ok && ev.Has(fsnotify.Create) {
					close(ch)
					delete(s.waiters, filepath.Base(ev.Name))
				}
				s.mu.Unlock()
				continue
			}
			var o op
			switch {
			case ev.Has(fsnotify.Create):
				o = opCreate
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					o |= opDir
				}
			case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
				o = opRemove
			case ev.Has(fsnotify.Write):
				o = opWrite
			default:
				continue
			}
			s.to.event(ev.Name, o)
		case err, ok := <-s.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				err = ErrEventsLost
			}
			s.to.fail(err)
		}
	}
}

// flush renames the fence file to a new name and waits for that name's
// event.
func (s *fsnotifySource) flush(ctx context.Context) error {
	ch := make(chan struct{})
	s.fenceMu.Lock()
	n := s.fences + 1
	name := "fence-" + strconv.Itoa(n)
	s.mu.Lock()
	s.waiters[name] = ch
	s.mu.Unlock()
	p := filepath.Join(s.fence, name)
	err := syscall.Rename(filepath.Join(s.fence, "fence-"+strconv.Itoa(s.fences)), p)
	if err != nil {
		// the fence file is gone (a cleaner emptied the temp directory):
		// a new one makes the event as well
		err = os.WriteFile(p, nil, 0o600)
	}
	if err == nil {
		s.fences = n
	}
	s.fenceMu.Unlock()
	if err != nil {
		s.mu.Lock()
		delete(s.waiters, name)
		s.mu.Unlock()
		return err
	}
	select {
	case <-ch:
		return nil
	case <-s.done:
		return errors.New("watcher closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *fsnotifySource) close() error {
	err := s.fsw.Close()
	<-s.done
	os.RemoveAll(s.fence)
	return err
}

package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// Change is one file's net change since the last Sync.
type Change struct {
	Path    string  // repo-relative, slash-separated
	Ranges  []Range // changed lines of the new content
	Diff    string  // unified diff, old to new
	Created bool
	Deleted bool
}

// Watcher watches a workspace. Its methods are safe for concurrent use.
type Watcher struct {
	root    string
	fsw     *fsnotify.Watcher
	ig      *ignorer
	fence   string // a directory outside the workspace, for barriers
	baseRev bool   // the root is a git work tree: clean files come from HEAD

	mu      sync.Mutex
	snap    map[string]*string // last known content; nil = did not exist
	dirty   map[string]bool    // paths touched since the last Sync
	waiters map[string]chan struct{}
	// fenceMu orders barriers: each renames fence-<fences> to the next
	fenceMu sync.Mutex
	fences  int
	err     error
	done    chan struct{}
	changed chan struct{} // signalled (without blocking) when a path turns dirty
}

// Changed is signalled when a file changes after the last Sync: the
// owner's cue to take native edits while no command runs.
func (w *Watcher) Changed() <-chan struct{} { return w.changed }

// Option configures a Watcher.
type Option func(*Watcher)

// Ignoring leaves the directories (absolute, or relative to the root)
// unwatched as well: where swetouch itself writes inside the workspace.
func Ignoring(dirs ...string) Option {
	return func(w *Watcher) {
		for _, d := range dirs {
			if filepath.IsAbs(d) {
				rel, err := filepath.Rel(w.root, d)
				if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
					continue
				}
				d = rel
			}
			w.ig.dirs = append(w.ig.dirs, filepath.ToSlash(filepath.Clean(d)))
		}
	}
}

// New starts watching root (recursively, skipping ignored directories).
func New(root string, opts ...Option) (*Watcher, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	fence, err := fenceDir()
	if err != nil {
		fsw.Close()
		return nil, err
	}
	w := &Watcher{
		root: root, fsw: fsw, ig: loadIgnorer(root), fence: fence,
		snap: map[string]*string{}, dirty: map[string]bool{}, waiters: map[string]chan struct{}{},
		done: make(chan struct{}), changed: make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(w)
	}
	w.baseRev = exec.Command("git", "-C", root, "rev-parse", "--verify", "-q", "HEAD").Run() == nil
	err = os.WriteFile(filepath.Join(fence, "fence-0"), nil, 0o600)
	if err == nil {
		err = fsw.Add(fence)
	}
	if err == nil {
		err = w.addTree(root)
	}
	if err == nil {
		err = w.snapshotDirty()
	}
	if err != nil {
		fsw.Close()
		os.RemoveAll(fence)
		return nil, err
	}
	go w.loop()
	return w, nil
}

// addTree watches dir and the directories below it that are not ignored.
func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if rel := w.rel(p); rel != "" && w.ig.ignored(rel, true) {
			return filepath.SkipDir
		}
		return w.fsw.Add(p)
	})
}

// snapshotDirty reads the files that differ from HEAD at start: for them
// git cannot supply the content before the next change.
func (w *Watcher) snapshotDirty() error {
	if !w.baseRev {
		return nil
	}
	out, err := exec.Command("git", "-C", w.root, "status", "--porcelain", "-z", "--untracked-files=all").Output()
	if err != nil {
		return fmt.Errorf("git status: %w", err)
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		rel := rec[3:]
		if b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel))); err == nil {
			s := string(b)
			w.snap[rel] = &s
		}
	}
	return nil
}

func (w *Watcher) rel(p string) string {
	r, err := filepath.Rel(w.root, p)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return ""
	}
	return filepath.ToSlash(r)
}

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			if w.err == nil {
				w.err = err // an overflow: Sync reports it
			}
			w.mu.Unlock()
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == w.fence {
		w.mu.Lock()
		if ch, ok := w.waiters[filepath.Base(ev.Name)]; ok && ev.Has(fsnotify.Create) {
			close(ch)
			delete(w.waiters, filepath.Base(ev.Name))
		}
		w.mu.Unlock()
		return
	}
	rel := w.rel(ev.Name)
	if rel == "" {
		return
	}
	info, err := os.Lstat(ev.Name)
	isDir := err == nil && info.IsDir()
	if w.ig.ignored(rel, isDir) {
		return
	}
	if isDir {
		if ev.Has(fsnotify.Create) {
			// files may have landed before the watch did: mark them
			w.addTree(ev.Name)
			filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if r := w.rel(p); r != "" && !w.ig.ignored(r, false) {
						w.mark(r)
					}
				}
				return nil
			})
		}
		return
	}
	w.mark(rel)
}

func (w *Watcher) mark(rel string) {
	w.mu.Lock()
	w.dirty[rel] = true
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// Pending reports whether a change has been seen since the last Sync,
// without waiting for events still in flight: a cheap test before paying
// for a barrier.
func (w *Watcher) Pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.dirty) > 0
}

// Sync waits until every file-system event that happened before the call
// has been seen, then returns the net changes since the previous Sync,
// sorted by path. Content is compared, so a write that changed nothing is
// no change.
func (w *Watcher) Sync(ctx context.Context) ([]Change, error) {
	if err := w.barrier(ctx); err != nil {
		return nil, err
	}
	w.mu.Lock()
	paths := make([]string, 0, len(w.dirty))
	for p := range w.dirty {
		paths = append(paths, p)
	}
	w.dirty = map[string]bool{}
	err := w.err
	w.err = nil
	w.mu.Unlock()
	sort.Strings(paths)
	var out []Change
	for _, p := range paths {
		if c, ok := w.compare(p); ok {
			out = append(out, c)
		}
	}
	if err != nil {
		return out, fmt.Errorf("watcher: %w (changes may be missing)", err)
	}
	return out, nil
}

// fenceDir makes the directory for barriers: in memory (/dev/shm) where
// there is one, because every command pays for two renames there and a
// rename on a disk file system is a journalled change (33 µs of CPU on
// ext4 here, against a few on tmpfs); else in the temp directory.
func fenceDir() (string, error) {
	if d, err := os.MkdirTemp("/dev/shm", "swetouch-fence-"); err == nil {
		return d, nil
	}
	return os.MkdirTemp("", "swetouch-fence-")
}

// barrier renames the fence file to a new name and waits for that name's
// event: inotify delivers one watcher's events in order, so everything
// before it has been handled. Every command pays for two barriers, so a
// fence is a rename: creating and removing a file each time cost ext4 an
// inode allocation, which on this project's machines was most of a
// barrier's 300 µs.
func (w *Watcher) barrier(ctx context.Context) error {
	ch := make(chan struct{})
	w.fenceMu.Lock()
	n := w.fences + 1
	name := "fence-" + strconv.Itoa(n)
	w.mu.Lock()
	w.waiters[name] = ch
	w.mu.Unlock()
	p := filepath.Join(w.fence, name)
	err := syscall.Rename(filepath.Join(w.fence, "fence-"+strconv.Itoa(w.fences)), p)
	if err != nil {
		// the fence file is gone (a cleaner emptied the temp directory):
		// a new one makes the event as well
		err = os.WriteFile(p, nil, 0o600)
	}
	if err == nil {
		w.fences = n
	}
	w.fenceMu.Unlock()
	if err != nil {
		w.mu.Lock()
		delete(w.waiters, name)
		w.mu.Unlock()
		return err
	}
	select {
	case <-ch:
		return nil
	case <-w.done:
		return errors.New("watcher closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// compare diffs a path's snapshot with its content now and moves the
// snapshot forward.
func (w *Watcher) compare(rel string) (Change, bool) {
	old := w.before(rel)
	var now *string
	if b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel))); err == nil {
		s := string(b)
		now = &s
	}
	w.mu.Lock()
	w.snap[rel] = now
	w.mu.Unlock()
	switch {
	case old == nil && now == nil:
		return Change{}, false
	case old != nil && now != nil && *old == *now:
		return Change{}, false
	}
	return Compare(rel, old, now), true
}

// Compare is the change of path from old to now (nil: the file did not
// exist): its diff and the changed lines of now. Relays use it for a
// write the watcher cannot see (an editor's buffer).
func Compare(path string, old, now *string) Change {
	o, n := "", ""
	if old != nil {
		o = *old
	}
	if now != nil {
		n = *now
	}
	ops := diffLines(o, n)
	c := Change{Path: path, Diff: unified(path, ops), Created: old == nil, Deleted: now == nil}
	if now != nil {
		c.Ranges = changedRanges(ops)
	}
	return c
}

// before is the content a path had at the last Sync: the snapshot, else
// HEAD's version (files are clean until first seen changing).
func (w *Watcher) before(rel string) *string {
	w.mu.Lock()
	s, ok := w.snap[rel]
	w.mu.Unlock()
	if ok {
		return s
	}
	if !w.baseRev {
		return nil
	}
	b, err := exec.Command("git", "-C", w.root, "show", "HEAD:"+rel).Output()
	if err != nil {
		return nil
	}
	str := string(b)
	return &str
}

// Accept records content the caller wrote itself (a Counter-Edit): after
// a Sync, the next comparison starts from it, so the write is not reported
// as anyone else's change.
func (w *Watcher) Accept(rel string, content *string) {
	w.mu.Lock()
	w.snap[rel] = content
	delete(w.dirty, rel)
	w.mu.Unlock()
}

// Close stops watching.
func (w *Watcher) Close() error {
	err := w.fsw.Close()
	<-w.done
	os.RemoveAll(w.fence)
	return err
}

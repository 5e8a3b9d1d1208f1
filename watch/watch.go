package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/swetouch/swetouch/internal/linediff"
)

// Range is a 1-based inclusive line range of a file's new content.
type Range struct{ Start, End int }

// Change is one file's net change since the last Sync.
type Change struct {
	Path    string  // repo-relative, slash-separated
	Ranges  []Range // changed lines of the new content
	Diff    string  // unified diff, old to new
	Created bool
	Deleted bool
	// Also names the start's file Path is under another name (a hard
	// link to it, its new name after a move): the change is that file's.
	Also []string
	// Files, for a change folding a burst of new files (Burst), is how
	// many; Path is then their directory.
	Files int
}

// Watcher watches a workspace. Its methods are safe for concurrent use.
type Watcher struct {
	root string
	src  source
	ig   *ignorer
	base Baseline // nil: no content is known before a file is first seen

	maxRead int64       // MaxRead
	keep    int64       // Keep
	burst   int         // Burst
	id      *identities // nil without a baseline

	mu      sync.Mutex
	snap    map[string]*string // last known content (content.go); nil = did not exist
	kept    int64              // bytes of text in snap
	dirty   map[string]bool    // paths touched since the last Sync
	moves   []move             // renames since the last Sync, in order
	err     error
	changed chan struct{} // signalled (without blocking) when a path turns dirty
}

// source delivers the file-system events under the watched directories
// (inotify on Linux, fsnotify elsewhere).
type source interface {
	// add watches one directory, not the ones below it.
	add(dir string) error
	// flush hands on every event of a change made before the call: the
	// barrier Sync stands on.
	flush(ctx context.Context) error
	// close stops watching; no event is handed on after it returns.
	close() error
}

// handler takes a source's events, one at a time, in the order the
// changes were made.
type handler interface {
	event(name string, o op)
	// moved reports a rename within the watched tree, after the event
	// of its new name (a source that cannot pair them reports none)
	moved(from, to string, dir bool)
	fail(err error) // events were lost (a full queue): the next Sync says so
}

// op is what happened to a name.
type op uint8

const (
	opCreate op = 1 << iota // made, or moved in
	opRemove                // removed, or moved away
	opWrite
	opDir // the name is a directory (when the source knows)
)

// Changed is signalled when a file changes after the last Sync: the
// owner's cue to take native edits while no command runs.
func (w *Watcher) Changed() <-chan struct{} { return w.changed }

// Baseline is the workspace as it was when the run began, kept where
// the agent cannot write (internal/baseline): where the content of a file
// not yet seen changing comes from, and which files the watcher must see
// wherever they lie. The watcher never asks the workspace's own git: its
// configuration and history are the agent's to write.
type Baseline interface {
	// Content is a file's content at the start; false for none.
	Content(rel string) (string, bool)
	// Link is a link's target at the start; false for no link.
	Link(rel string) (string, bool)
	// Has and HasDir say whether a file, or a directory holding files,
	// was there at the start.
	Has(rel string) bool
	HasDir(rel string) bool
	// Below lists the files that were under a directory; Paths all of
	// them.
	Below(rel string) []string
	Paths() []string
}

// From takes clean files' content from b.
func From(b Baseline) Option { return func(w *Watcher) { w.base = b } }

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
	w := &Watcher{
		root: root, ig: loadIgnorer(root),
		snap: map[string]*string{}, dirty: map[string]bool{}, changed: make(chan struct{}, 1),
		maxRead: DefaultMaxRead, keep: DefaultKeep, burst: DefaultBurst,
	}
	for _, o := range opts {
		o(w)
	}
	w.ig.kept = w.base
	if w.base != nil {
		w.id = newIdentities()
		w.startFiles()
	}
	if w.src, err = newSource(w); err != nil {
		return nil, err
	}
	if err = w.addTree(root); err != nil {
		w.src.close()
		return nil, err
	}
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
		return w.src.add(p)
	})
}

func (w *Watcher) rel(p string) string {
	r, err := filepath.Rel(w.root, p)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return ""
	}
	return filepath.ToSlash(r)
}

// event takes one of the source's events.
func (w *Watcher) event(name string, o op) {
	rel := w.rel(name)
	if rel == "" {
		return
	}
	isDir := o&opDir != 0
	if w.ig.ignored(rel, isDir) {
		return
	}
	switch {
	case isDir && o&opCreate != 0:
		// files may have landed before the watch did: mark them
		w.addTree(name)
		filepath.WalkDir(name, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if r := w.rel(p); r != "" && !w.ig.ignored(r, false) {
					w.mark(r)
				}
			}
			return nil
		})
	case isDir && o&opRemove != 0:
		w.markBelow(rel)
	case !isDir:
		w.mark(rel)
	}
}

// markBelow marks the files known under a directory that was removed or
// moved away: the ones of the start and the ones seen since. A directory moved
// away reports nothing of its files, which are gone from the workspace
// all the same.
func (w *Watcher) markBelow(rel string) {
	prefix := rel + "/"
	var paths []string
	w.mu.Lock()
	for p, s := range w.snap {
		if s != nil && strings.HasPrefix(p, prefix) {
			paths = append(paths, p)
		}
	}
	w.mu.Unlock()
	if w.base != nil {
		paths = append(paths, w.base.Below(rel)...)
	}
	for _, p := range paths {
		if !w.ig.ignored(p, false) {
			w.mark(p)
		}
	}
}

func (w *Watcher) moved(from, to string, dir bool) {
	f, t := w.rel(from), w.rel(to)
	if f == "" || t == "" {
		return
	}
	w.mu.Lock()
	if len(w.moves) < 1<<16 {
		w.moves = append(w.moves, move{f, t, dir})
	}
	w.mu.Unlock()
}

func (w *Watcher) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err // an overflow: Sync reports it
	}
	w.mu.Unlock()
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

// ErrEventsLost is what a source reports when the kernel dropped events
// (its queue overflowed, as a checkout of thousands of files can make it).
var ErrEventsLost = errors.New("file events lost: the kernel's queue overflowed")

// Sync waits until every file-system event that happened before the call
// has been seen, then returns the net changes since the previous Sync,
// sorted by path. Content is compared, so a write that changed nothing is
// no change.
func (w *Watcher) Sync(ctx context.Context) ([]Change, error) {
	if err := w.src.flush(ctx); err != nil {
		return nil, err
	}
	w.mu.Lock()
	lost := errors.Is(w.err, ErrEventsLost)
	w.mu.Unlock()
	if lost && w.recover() == nil {
		w.mu.Lock()
		if errors.Is(w.err, ErrEventsLost) {
			w.err = nil
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	var paths []string
	if len(w.dirty) > 0 {
		paths = make([]string, 0, len(w.dirty))
		for p := range w.dirty {
			paths = append(paths, p)
		}
		if len(w.dirty) > 1024 {
			w.dirty = map[string]bool{} // not a checkout's worth of room kept
		} else {
			clear(w.dirty) // a relay's hub syncs twice a call, nearly always with nothing dirty
		}
	}
	err := w.err
	w.err = nil
	moves := w.moves
	w.moves = nil
	w.mu.Unlock()
	out := w.changes(paths, moves)
	if err != nil {
		return out, fmt.Errorf("watcher: %w (changes may be missing)", err)
	}
	return out, nil
}

// changes compares the paths (and the other names of the files they
// touched), folding a burst of new files.
func (w *Watcher) changes(paths []string, moves []move) []Change {
	if len(paths) == 0 {
		return nil
	}
	more, also := w.follow(paths, moves)
	paths = append(paths, more...)
	sort.Strings(paths)
	fold := false
	if w.burst > 0 && len(paths) > w.burst {
		n := 0
		for _, p := range paths {
			if w.isNew(p) {
				n++
			}
		}
		fold = n > w.burst
	}
	// a new name of a start's file (a hard link, a move) is compared
	// with that file as it was: naming it again changes nothing of it
	prior := map[string]*string{}
	for p, name := range also {
		if w.isNew(p) {
			prior[p] = w.before(name)
		}
	}
	var out []Change
	var made []string
	for _, p := range paths {
		if pr, ok := prior[p]; ok {
			out = append(out, w.renamed(p, also[p], pr)...)
			continue
		}
		if fold && w.isNew(p) {
			if w.take(p) != nil {
				made = append(made, p)
			}
			continue
		}
		if c, ok := w.compare(p); ok {
			if name, ok := also[p]; ok {
				c.Also = []string{name}
			}
			out = append(out, c)
		}
	}
	if len(made) > 0 {
		out = append(out, folded(made, w.burst)...)
		sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	}
	return out
}

// renamed is the change of p, a new name of the start's file name whose
// content was old: a change of that file if p's content differs, and
// otherwise only p's appearance, which is no edit of the file.
func (w *Watcher) renamed(p, name string, old *string) []Change {
	now := w.take(p)
	if now == nil {
		return nil
	}
	if old != nil && same(*old, *now) {
		return []Change{{Path: p, Created: true, Diff: fmt.Sprintf("%s: a new name of %s\n", p, name)}}
	}
	c := Compare(p, old, now)
	c.Created, c.Also = true, []string{name}
	return []Change{c}
}

// recover makes up for lost events: it watches again every directory (a
// new one's event may have been lost with its files) and marks every path
// that can differ from what was last seen: every file there now, every
// file of the start, and those seen changing before. Without a baseline
// there is nothing to compare files not yet seen with, and the loss stays
// reported.
func (w *Watcher) recover() error {
	if w.base == nil {
		return errors.New("no baseline to rescan against")
	}
	if err := w.addTree(w.root); err != nil {
		return err
	}
	paths := w.base.Paths()
	filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel := w.rel(p)
		if d.IsDir() {
			if rel != "" && w.ig.ignored(rel, true) {
				return filepath.SkipDir
			}
			return nil
		}
		paths = append(paths, rel)
		return nil
	})
	w.mu.Lock()
	for p := range w.snap {
		paths = append(paths, p)
	}
	w.mu.Unlock()
	for _, p := range paths {
		if !w.ig.ignored(p, false) {
			w.mark(p)
		}
	}
	return nil
}

// take reads rel's content now (nil: none the watcher may read) and
// keeps it as the snapshot later diffs start from.
func (w *Watcher) take(rel string) *string {
	var now *string
	if s, ok := w.readContent(rel); ok {
		now = &s
	}
	w.mu.Lock()
	w.storeLocked(rel, now)
	w.mu.Unlock()
	return now
}

// compare diffs a path's snapshot with its content now and moves the
// snapshot forward.
func (w *Watcher) compare(rel string) (Change, bool) {
	old := w.before(rel)
	now := w.take(rel)
	switch {
	case old == nil && now == nil:
		return Change{}, false
	case old != nil && now != nil && same(*old, *now):
		return Change{}, false
	}
	return Compare(rel, old, now), true
}

// Compare is the change of path from old to now (nil: the file did not
// exist): its diff and the changed lines of now. Relays use it for a
// write the watcher cannot see (an editor's buffer). A side the watcher
// keeps as a summary (content.go) makes the whole file the change.
func Compare(path string, old, now *string) Change {
	if old != nil && isSummary(*old) || now != nil && isSummary(*now) {
		return binaryChange(path, old, now)
	}
	o, n := "", ""
	if old != nil {
		o = *old
	}
	if now != nil {
		n = *now
	}
	ops := linediff.Lines(o, n)
	c := Change{Path: path, Diff: linediff.Unified(path, ops), Created: old == nil, Deleted: now == nil}
	if now != nil {
		for _, r := range linediff.Changed(ops) {
			c.Ranges = append(c.Ranges, Range(r))
		}
	}
	return c
}

// before is the content a path had at the last Sync: the snapshot, else
// the baseline's (files are clean until first seen changing).
func (w *Watcher) before(rel string) *string {
	w.mu.Lock()
	s, ok := w.snap[rel]
	w.mu.Unlock()
	if ok {
		return s
	}
	if w.base == nil {
		return nil
	}
	if target, ok := w.base.Link(rel); ok {
		str := linkSummary(target)
		return &str
	}
	str, ok := w.base.Content(rel)
	if !ok {
		return nil
	}
	str = w.asKept(str)
	return &str
}

// Accept records content the caller wrote itself (a Counter-Edit): after
// a Sync, the next comparison starts from it, so the write is not reported
// as anyone else's change.
func (w *Watcher) Accept(rel string, content *string) {
	if content != nil {
		kept := w.asKept(*content)
		content = &kept
	}
	w.mu.Lock()
	w.storeLocked(rel, content)
	delete(w.dirty, rel)
	w.mu.Unlock()
}

// Close stops watching.
func (w *Watcher) Close() error { return w.src.close() }

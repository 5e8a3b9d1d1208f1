package score

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// ReadOption says what Read reads beyond each trial's result.
type ReadOption func(*readOptions)

type readOptions struct {
	timelines bool
	index     bool
	indexFrom int // the fewest trials a folder holds to be given an index
	workers   int
}

// WithTimelines reads every trial's trajectory into its Marks, as a
// report draws them. Without it a trajectory is read only when it may
// hold a user's edit (the figures need its fate and what came after), so
// a trial's Marks are then nil: scoring 100,000 trials reads a third of
// the bytes it would.
func WithTimelines() ReadOption { return func(o *readOptions) { o.timelines = true } }

// WithIndex reads each folder through its index (IndexFile), trusting
// an entry only while its files are the ones it was made from (size,
// time and inode, a folder's listing by the folder's time), and writes
// the index anew when it was missing or a hundredth of its trials had
// changed, in a folder of IndexFrom trials or more. The trials are the same as without it (Summary's part of each
// result). SWETOUCH_REFERENCE=1 reads without it.
func WithIndex() ReadOption {
	return func(o *readOptions) { o.index = !fastjson.Reference() }
}

// WithWorkers reads with n trials at a time (default: one per CPU).
func WithWorkers(n int) ReadOption { return func(o *readOptions) { o.workers = max(n, 1) } }

// Load finds every run (a folder with result.json) under the given
// folders, which may come from many machines, with its timeline.
func Load(dirs ...string) ([]Trial, error) {
	return Read(dirs, WithTimelines())
}

// Read finds every run (a folder with result.json) under dirs, in folder
// order, reading them in parallel while the folders are still being
// walked (the walk, a directory read per trial, was a sixth of the
// work, done alone before). A result.json that does not parse is an
// error naming it (the first in walking order).
func Read(dirs []string, opts ...ReadOption) ([]Trial, error) {
	o := readOptions{workers: runtime.GOMAXPROCS(0), indexFrom: IndexFrom}
	for _, opt := range opts {
		opt(&o)
	}
	var (
		mu    sync.Mutex
		errAt = -1
		first error
		wg    sync.WaitGroup
	)
	// each worker keeps its own trials, joined once at the end: appending
	// to one shared slice under the lock copied every Trial again each
	// time it grew, with the other workers waiting (a tenth of score's
	// CPU at 100,000 trials)
	each := make([][]Trial, o.workers)
	next := make(chan found, 1024)
	for w := range o.workers {
		wg.Go(func() {
			readFound(next, o.timelines, func(i int, t Trial, err error) {
				if err == nil {
					each[w] = append(each[w], t)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if errAt < 0 || i < errAt {
					errAt, first = i, err
				}
			})
		})
	}
	roots, walkErr := walkRuns(dirs, o, next)
	close(next)
	wg.Wait()
	switch {
	case walkErr != nil:
		return nil, walkErr
	case first != nil:
		return nil, first
	}
	for _, r := range roots {
		// the index only saves work: a folder not ours to write goes without
		if r.worthWriting(o.indexFrom) {
			writeIndex(r.root, r.found)
		}
		if r.timelines != nil && r.timelines.worthWriting(o.indexFrom) {
			r.timelines.write(r.root)
		}
	}
	n := 0
	for _, ts := range each {
		n += len(ts)
	}
	trials := make([]Trial, 0, n)
	for _, ts := range each {
		trials = append(trials, ts...)
	}
	sort.Slice(trials, func(i, j int) bool { return trials[i].Dir < trials[j].Dir })
	return trials, nil
}

// found is a run's result.json as the walk found it, in walking order:
// with an index, its folder's entry and what the index held of it.
type found struct {
	i    int
	p    string
	e    *indexEntry
	prev *indexTrial
	root *indexedRoot
}

// readFound reads each run the walk sends, through its index where it
// has one, and gives each to done.
func readFound(next <-chan found, timelines bool, done func(i int, t Trial, err error)) {
	var f files
	for it := range next {
		var t Trial
		var err error
		if it.e == nil {
			t, err = f.readTrial(it.p, timelines)
		} else {
			var hit bool
			t, it.e.Trial, hit, err = f.readIndexed(it.p, it.prev, it.root.since)
			if !hit {
				it.root.misses.Add(1)
			}
			if err == nil && timelines {
				it.root.timelines.read(&f, &t, it.e.Dir, it.root.since)
			}
		}
		done(it.i, t, err)
	}
}

// walkRuns sends every run under dirs to next, in folder order: through
// each folder's index where o allows one, else by walking it. The
// indexed roots come back for their indexes to be written.
func walkRuns(dirs []string, o readOptions, next chan<- found) ([]*indexedRoot, error) {
	n := 0
	var roots []*indexedRoot
	for _, d := range dirs {
		var walkErr error
		if fi, err := os.Lstat(d); o.index && err == nil && fi.IsDir() {
			r := &indexedRoot{root: d, since: time.Now().Add(-racyWindow), old: loadIndex(d)}
			if o.timelines {
				r.timelines = loadTimelines(d)
			}
			roots = append(roots, r)
			walkErr = r.walk(func(p string, e *indexEntry, prev *indexTrial) {
				next <- found{n, p, e, prev, r}
				n++
			})
		} else {
			// the folders seen holding Harbor's config.json: its own
			// result.json there is no run (config.json sorts before it)
			harbor := map[string]bool{}
			walkErr = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
				switch {
				case err != nil || e.IsDir():
				case e.Name() == harborConfig:
					harbor[filepath.Dir(p)] = true
				case e.Name() == "result.json" && !harbor[filepath.Dir(p)]:
					next <- found{i: n, p: p}
					n++
				}
				return err
			})
		}
		if walkErr != nil {
			return roots, walkErr
		}
	}
	return roots, nil
}

// readTrial reads one run's result.json and, as needed, its trajectory.
// The result is read by encoding/json's v1 rules on the v2 engine (the
// Go team's module that becomes encoding/json/v2): the same values, read
// about four times as fast, which is most of what scoring costs.
func (f *files) readTrial(p string, timelines bool) (Trial, error) {
	var t Trial
	b, err := f.read(p)
	if err != nil {
		return t, err
	}
	if err := jsonv1.Unmarshal(b, &t.Result); err != nil {
		return t, fmt.Errorf("%s: %v", p, err)
	}
	t.Dir = filepath.Dir(p)
	t.inspect(f, timelines)
	return t, nil
}

// files reads a worker's files into one buffer it keeps: what is read
// is decoded (copied out) before the next read, so 100,000 trials' files
// cost neither an allocation each nor os.ReadFile's stat.
type files struct{ buf []byte }

// read returns the file's bytes, valid until the next read.
func (f *files) read(p string) ([]byte, error) {
	fd, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	if f.buf == nil {
		f.buf = make([]byte, 0, 64<<10)
	}
	b := f.buf[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := fd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || n == 0 && err == nil {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	f.buf = b[:0]
	return b, nil
}

package score

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// indexedRoot is one folder Read walks with its index: the index as it
// was, the folders found this time (the next index) and how many trials
// had to be read in full.
type indexedRoot struct {
	root   string
	old    index
	since  time.Time // entries changed after this are not trusted
	found  []*indexEntry
	misses atomic.Int64
	trials int
	// timelines are the kept timelines, read with WithTimelines
	timelines *timelines
}

// walk visits root's folders as filepath.WalkDir does (name order, a
// folder's result.json where its name sorts among its folders), listing
// a folder only when it changed since the index was written: a folder's
// time changes whenever an entry is made, removed or renamed in it.
// Each trial goes to emit with its folder's entry, which the worker
// fills in.
func (r *indexedRoot) walk(emit func(path string, e *indexEntry, prev *indexTrial)) error {
	return r.dir(r.root, ".", emit)
}

func (r *indexedRoot) dir(abs, rel string, emit func(string, *indexEntry, *indexTrial)) error {
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	e := &indexEntry{Dir: rel, fileID: identify(fi, r.since)}
	prev := r.old[rel]
	if prev != nil && prev.same(e.fileID) {
		e.Subdirs, e.Result = prev.Subdirs, prev.Result
	} else {
		entries, err := os.ReadDir(abs)
		if err != nil {
			return err
		}
		harbor := false
		for _, d := range entries {
			switch {
			case d.IsDir():
				e.Subdirs = append(e.Subdirs, d.Name())
			case d.Name() == "result.json":
				e.Result = true
			case d.Name() == harborConfig:
				harbor = true
			}
		}
		// Harbor's own result.json, beside its config.json, is no run
		e.Result = e.Result && !harbor
	}
	r.found = append(r.found, e)
	var prevTrial *indexTrial
	if prev != nil {
		prevTrial = prev.Trial
	}
	trial := func() {
		if e.Result {
			r.trials++
			emit(filepath.Join(abs, "result.json"), e, prevTrial)
		}
	}
	done := false
	for _, s := range e.Subdirs {
		if !done && s > "result.json" {
			trial()
			done = true
		}
		if err := r.dir(filepath.Join(abs, s), path(rel, s), emit); err != nil {
			return err
		}
	}
	if !done {
		trial()
	}
	return nil
}

func path(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// worthWriting says whether the index is worth writing anew: the folder
// holds least trials or more (a handful read as fast without, and a
// folder of one trial, or a test's, is left as it was), and the index
// was missing or a hundredth or more of its trials had to be read in
// full (a results folder still filling up is not rewritten for every
// trial that finished since).
func (r *indexedRoot) worthWriting(least int) bool {
	m := r.misses.Load()
	return r.trials >= least && m > 0 && (len(r.old) == 0 || 100*m >= int64(r.trials))
}

// IndexFrom is how many trials a folder holds before Read writes it an
// index: below it, reading them costs a few milliseconds.
const IndexFrom = 1000

// readIndexed reads the trial at p (its result.json) for the figures
// through its previous entry when its files are the ones indexed, else
// in full, and returns the entry's trial for the next index. A
// timeline is the timelines' to read.
func (f *files) readIndexed(p string, prev *indexTrial, since time.Time) (Trial, *indexTrial, bool, error) {
	dir := filepath.Dir(p)
	// the files are looked at before they are read: one changed between
	// the two is read again next time
	now := indexTrial{ResultFile: statID(p, since)}
	userFiles := func() {
		traj, diff := statID(filepath.Join(dir, trajectoryFile), since), statID(filepath.Join(dir, finalDiffFile), since)
		now.Trajectory, now.FinalDiff = &traj, &diff
	}
	if prev != nil && prev.Trajectory != nil {
		userFiles()
	}
	if prev.matches(&now) {
		return Trial{Dir: dir, Result: prev.Result, Fate: prev.Fate, After: prev.After}, prev, true, nil
	}
	if now.Trajectory == nil {
		userFiles()
	}
	t, err := f.readTrial(p, false)
	if err != nil {
		return t, nil, false, err
	}
	t.Result = Summary(t.Result) // as a trial read through the index has it
	rec := &indexTrial{ResultFile: now.ResultFile, Result: t.Result}
	if t.userMayHaveActed() {
		// the fate and what came after come from these files
		rec.Fate, rec.After, rec.Trajectory, rec.FinalDiff = t.Fate, t.After, now.Trajectory, now.FinalDiff
	}
	return t, rec, false, nil
}

// The files a trial's user's edit is read from.
const (
	trajectoryFile = "trajectory.jsonl"
	finalDiffFile  = "final.diff"
)

// matches says whether every file the entry was made from is as it was.
func (prev *indexTrial) matches(now *indexTrial) bool {
	if prev == nil || !prev.ResultFile.same(now.ResultFile) || (prev.Trajectory == nil) != (now.Trajectory == nil) {
		return false
	}
	return prev.Trajectory == nil || prev.Trajectory.same(*now.Trajectory) && prev.FinalDiff != nil && prev.FinalDiff.same(*now.FinalDiff)
}

// parallel runs do(i) for every i below n on every CPU and reports
// whether every call returned true.
func parallel(n int, do func(i int) bool) bool {
	workers := min(runtime.GOMAXPROCS(0), max(n/256, 1))
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		bad  atomic.Bool
	)
	for range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(256)) - 256
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+256, n); i++ {
					if !do(i) {
						bad.Store(true)
					}
				}
			}
		})
	}
	wg.Wait()
	return !bad.Load()
}

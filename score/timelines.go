package score

import (
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// TimelinesFile keeps, beside IndexFile, each trial's timeline as a
// report draws it (WithIndex and WithTimelines): reading 100,000
// trajectories for their marks was half of report's CPU.
const TimelinesFile = "score-timelines.jsonl"

const timelinesFormat = "swetouch-score-timelines"

// timelineEntry is one trial's timeline, with the identities of the
// files it was read from: a timeline depends on them alone.
type timelineEntry struct {
	Dir        string  `json:"dir"`
	Trajectory fileID  `json:"trajectory"`
	FinalDiff  fileID  `json:"final_diff"`
	Fate       string  `json:"fate,omitempty"`
	After      *Counts `json:"after,omitempty"`
	Marks      []Mark  `json:"marks"`
}

// timelines are one root's kept timelines by folder, and those read
// this time (the next file).
type timelines struct {
	mu     sync.Mutex
	old    map[string]*timelineEntry
	found  []*timelineEntry
	misses int
}

// loadTimelines reads root's kept timelines (none when they are
// missing or damaged).
func loadTimelines(root string) *timelines {
	return &timelines{old: readEntries(filepath.Join(root, TimelinesFile), timelinesFormat, func(e *timelineEntry) string { return e.Dir })}
}

// read gives the trial at dir (rel to the root) its timeline, kept or
// read from its trajectory.
func (tl *timelines) read(f *files, t *Trial, rel string, since time.Time) {
	traj, diff := statID(filepath.Join(t.Dir, trajectoryFile), since), statID(filepath.Join(t.Dir, finalDiffFile), since)
	e := tl.old[rel]
	if e == nil || !e.Trajectory.same(traj) || !e.FinalDiff.same(diff) {
		t.Fate, t.After, t.Marks = "", nil, nil
		t.inspect(f, true)
		e = &timelineEntry{Dir: rel, Trajectory: traj, FinalDiff: diff, Fate: t.Fate, After: t.After, Marks: t.Marks}
		tl.mu.Lock()
		tl.misses++
		tl.mu.Unlock()
	}
	t.Fate, t.After, t.Marks = e.Fate, e.After, e.Marks
	tl.mu.Lock()
	tl.found = append(tl.found, e)
	tl.mu.Unlock()
}

// worthWriting: as the index, when missing or a hundredth stale.
func (tl *timelines) worthWriting(least int) bool {
	return len(tl.found) >= least && tl.misses > 0 && (len(tl.old) == 0 || 100*tl.misses >= len(tl.found))
}

// write writes root's timelines, whole or not at all.
func (tl *timelines) write(root string) error {
	sort.Slice(tl.found, func(i, j int) bool { return tl.found[i].Dir < tl.found[j].Dir })
	return writeEntries(filepath.Join(root, TimelinesFile), timelinesFormat, tl.found)
}

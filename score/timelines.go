package score

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/swetouch/swetouch/internal/atomicfile"
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

// loadTimelines reads root's timelines, a chunk at a time (the file is
// about the size of report.json: it is never whole in memory); one that
// is missing, of another format or damaged is none.
func loadTimelines(root string) *timelines {
	tl := &timelines{old: map[string]*timelineEntry{}}
	f, err := os.Open(filepath.Join(root, TimelinesFile))
	if err != nil {
		return tl
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	head, err := r.ReadBytes('\n')
	var h trajectoryHeader
	if err != nil || jsonv1.Unmarshal(head, &h) != nil || h.Format != timelinesFormat || h.Version != indexVersion {
		return tl
	}
	ok := chunks(r, func(lines [][]byte) bool {
		entries := make([]timelineEntry, len(lines))
		if !parallel(len(lines), func(i int) bool {
			return len(lines[i]) == 0 || jsonv1.Unmarshal(lines[i], &entries[i]) == nil
		}) {
			return false
		}
		for i := range entries {
			if entries[i].Dir != "" {
				tl.old[entries[i].Dir] = &entries[i]
			}
		}
		return true
	})
	if !ok {
		return &timelines{old: map[string]*timelineEntry{}}
	}
	return tl
}

// chunks gives each's lines a few MiB at a time (a file as large as
// report.json is never whole in memory), until each says stop (false)
// or the file ends; it reports whether each always said go on.
func chunks(r io.Reader, each func(lines [][]byte) bool) bool {
	return chunksOf(r, 8<<20, each)
}

func chunksOf(r io.Reader, size int, each func(lines [][]byte) bool) bool {
	buf := make([]byte, size)
	var carry []byte
	for {
		n, err := io.ReadFull(r, buf)
		chunk := append(carry, buf[:n]...)
		last := bytes.LastIndexByte(chunk, '\n')
		if err != nil { // the end: what is left is the last line
			last = len(chunk)
		}
		if !each(bytes.Split(chunk[:max(last, 0)], []byte("\n"))) {
			return false
		}
		if err != nil {
			return true
		}
		carry = append(carry[:0], chunk[last+1:]...)
	}
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
	return atomicfile.Write(filepath.Join(root, TimelinesFile), 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		fmt.Fprintf(bw, `{"format":%q,"version":%d}`+"\n", timelinesFormat, indexVersion)
		const batch = 4096
		lines := make([][]byte, batch)
		for lo := 0; lo < len(tl.found); lo += batch {
			part := tl.found[lo:min(lo+batch, len(tl.found))]
			if !parallel(len(part), func(i int) bool {
				var err error
				lines[i], err = jsonv1.Marshal(part[i])
				return err == nil
			}) {
				return fmt.Errorf("%s: a timeline does not encode", TimelinesFile)
			}
			for _, l := range lines[:len(part)] {
				bw.Write(l)
				bw.WriteByte('\n')
			}
		}
		return bw.Flush()
	})
}

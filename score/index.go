package score

import (
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/result"
)

// IndexFile is the index a results folder keeps of its trials
// (WithIndex): one line per folder under it with what a walk and the
// figures need, so scoring 100,000 trials reads one file and stats the
// rest instead of opening 200,000 or more (a fifth of score's CPU was
// the system calls of reading them, a quarter decoding them).
const IndexFile = "score-index.jsonl"

// indexFormat names the index's first line; a file with another format
// or version is ignored (and rewritten), never an error.
const (
	indexFormat  = "swetouch-score-index"
	indexVersion = 2
)

// racyWindow: an entry changed this close to the index's start (or
// after it) is not trusted, since a folder's or file's time has the
// clock's coarse granularity and a second change within one tick leaves
// it the same (git's "racily clean" entries; a second is far above any
// tick, and covers a clock a little ahead on a shared file system).
const racyWindow = time.Second

// fileID is what says a file is the one indexed: its size, change time
// and inode (a folder copied with its times kept is a miss: another
// inode). Size -1 is a file that was absent.
type fileID struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
	Ino   uint64 `json:"ino"`
}

// indexEntry is one folder under the indexed root.
type indexEntry struct {
	Dir string `json:"dir"` // relative to the root, slashed; "." for the root
	fileID
	// Subdirs are the folder's folders, in name order; Result whether it
	// holds a result.json (a trial).
	Subdirs []string    `json:"subdirs,omitempty"`
	Result  bool        `json:"result,omitempty"`
	Trial   *indexTrial `json:"trial,omitempty"`
}

// indexTrial is a trial as the figures read it.
type indexTrial struct {
	// ResultFile is result.json's identity; Trajectory's and FinalDiff's
	// are there when the fate was read from them (Read looks at them
	// only then).
	ResultFile fileID     `json:"result_file"`
	Trajectory *fileID    `json:"trajectory,omitempty"`
	FinalDiff  *fileID    `json:"final_diff,omitempty"`
	Fate       string     `json:"fate,omitempty"`
	After      *Counts    `json:"after,omitempty"`
	Result     result.Run `json:"result"`
}

// Summary is the part of a result score and report read: a trial read
// through the index has this and no more. What it leaves out (the
// agent's command line, the attempts' diffs, the timings, the limits,
// the canaries, the listed tests) none of the figures or the report's
// files show (TestSummaryIsWhatScoreReads).
func Summary(r result.Run) result.Run {
	return result.Run{
		Task: r.Task, Condition: r.Condition, AgentName: r.AgentName, Resolved: r.Resolved, Reason: r.Reason,
		Steps: r.Steps, ModelCalls: r.ModelCalls, Applied: r.Applied, Delivered: r.Delivered, Unconfirmed: r.Unconfirmed,
		UserModel: r.UserModel, ModelUsage: r.ModelUsage, Sandbox: r.Sandbox, Audit: r.Audit, Conversation: r.Conversation,
	}
}

// identify is the file's identity; absent files are Size -1, and
// racy marks one changed too recently to be trusted.
func identify(fi os.FileInfo, since time.Time) fileID {
	id := fileID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Ino = st.Ino
	}
	if !fi.ModTime().Before(since) {
		id.MTime = -1 // never matches: read it again next time
	}
	return id
}

// absent is a file that was not there.
var absent = fileID{Size: -1}

// statID is path's identity: absent when it is not there, never the
// one indexed when it cannot be looked at.
func statID(path string, since time.Time) fileID {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return absent
	case err != nil:
		return fileID{Size: -2, MTime: -1}
	}
	return identify(fi, since)
}

// same says whether a file is still the one indexed (a racy entry
// never is).
func (id fileID) same(now fileID) bool { return id.MTime != -1 && id == now }

// index is one root's index as read: its folders by relative path.
type index map[string]*indexEntry

// loadIndex reads root's index; an index that is missing, of another
// format or damaged is an empty one (the trials are then read in full).
func loadIndex(root string) index {
	return readEntries(filepath.Join(root, IndexFile), indexFormat, func(e *indexEntry) string { return e.Dir })
}

// writeIndex writes root's index from the folders a read found, whole or
// not at all. A root that cannot be written (read-only, another's) keeps
// its old index: the index only saves work.
func writeIndex(root string, entries []*indexEntry) error {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Dir < entries[j].Dir })
	return writeEntries(filepath.Join(root, IndexFile), indexFormat, entries)
}

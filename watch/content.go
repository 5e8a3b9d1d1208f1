package watch

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// What the watcher keeps of a file is its text, or, for what it will not
// diff as lines, a summary starting with a NUL (git takes a NUL as the
// mark of a binary file, so no text starts with one): a file past the
// read limit or holding a NUL, by its size and hash; a link, by its
// target. The watcher never follows a link: a file replaced by a link is
// an edit of it, and a write through a link is seen at the file written.
// So what an agent leaves costs the watcher its read limit a file, and
// the session at most the keep budget in all: a 16 MiB sparse file once
// cost 640 MiB and a 96 MiB trajectory.
const (
	// DefaultMaxRead is the largest file read as text.
	DefaultMaxRead = 1 << 20
	// DefaultKeep is the most text kept of all files for later diffs;
	// past it, files are kept as summaries.
	DefaultKeep = 64 << 20
)

// MaxRead sets the largest file read as text.
func MaxRead(n int64) Option { return func(w *Watcher) { w.maxRead = n } }

// Keep sets the most text kept of all files.
func Keep(n int64) Option { return func(w *Watcher) { w.keep = n } }

const summaryMark = "\x00"

func isSummary(s string) bool { return strings.HasPrefix(s, summaryMark) }

func linkSummary(target string) string { return summaryMark + "a link to " + target }

func hashSummary(size int64, sum []byte) string {
	return fmt.Sprintf("%s%d bytes, sha256 %x", summaryMark, size, sum)
}

// summarize is text as the summary a file of that content gets.
func summarize(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hashSummary(int64(len(text)), sum[:])
}

// asKept is content as the watcher keeps it: text up to the read limit
// with no NUL in git's first 8000 bytes, else its summary.
func (w *Watcher) asKept(text string) string {
	if isSummary(text) || int64(len(text)) <= w.maxRead && strings.IndexByte(text[:min(len(text), 8000)], 0) < 0 {
		return text
	}
	return summarize(text)
}

// same reports whether two kept contents are one: a summary equals the
// text it summarizes.
func same(a, b string) bool {
	if isSummary(a) != isSummary(b) {
		if isSummary(a) {
			return a == summarize(b)
		}
		return b == summarize(a)
	}
	return a == b
}

// readContent is the content of the workspace file rel as the watcher
// keeps it, or false when it has none the watcher may read: it opens
// regular files only, never follows a link, never waits.
func (w *Watcher) readContent(rel string) (string, bool) {
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	info, err := os.Lstat(p)
	switch {
	case err != nil:
		return "", false
	case info.Mode()&os.ModeSymlink != 0:
		l, err := os.Readlink(p)
		return linkSummary(l), err == nil
	case !info.Mode().IsRegular():
		return "", false
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false // swapped since the Lstat
	}
	b, err := io.ReadAll(io.LimitReader(f, w.maxRead+1))
	if err != nil {
		return "", false
	}
	if int64(len(b)) > w.maxRead {
		// hashed as it streams: the rest of the file is never held
		h := sha256.New()
		h.Write(b)
		n, err := io.Copy(h, f)
		if err != nil {
			return "", false
		}
		return hashSummary(int64(len(b))+n, h.Sum(nil)), true
	}
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return summarize(string(b)), true
	}
	return string(b), true
}

// storeLocked keeps s as rel's content, as a summary once the text kept
// is past the budget. w.mu is held.
func (w *Watcher) storeLocked(rel string, s *string) {
	if old, ok := w.snap[rel]; ok && old != nil && !isSummary(*old) {
		w.kept -= int64(len(*old))
	}
	if s != nil && !isSummary(*s) {
		if w.kept+int64(len(*s)) > w.keep {
			sum := summarize(*s)
			s = &sum
		} else {
			w.kept += int64(len(*s))
		}
	}
	w.snap[rel] = s
}

// binaryChange is a change the watcher does not show as lines: the file
// as a whole is the edit.
func binaryChange(path string, old, now *string) Change {
	from, to := "a/"+path, "b/"+path
	if old == nil {
		from = "/dev/null"
	}
	if now == nil {
		to = "/dev/null"
	}
	return Change{Path: path, Diff: fmt.Sprintf("Binary files %s and %s differ\n", from, to), Created: old == nil, Deleted: now == nil}
}

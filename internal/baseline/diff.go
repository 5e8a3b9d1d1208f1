package baseline

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/internal/linediff"
)

// File is one file's change from the start.
type File struct {
	Path string
	// Status is 'A' (added), 'D' (deleted), 'M' (content or mode changed)
	// or 'T' (a file became a link, or a link a file).
	Status           byte
	OldMode, NewMode string // git's: 100644, 100755, 120000; "" for none
	// Binary says the content is not shown as lines: it holds a NUL, or
	// either side is past the text limit.
	Binary bool
}

// DiffOption configures Diff.
type DiffOption func(*differ)

type differ struct {
	maxText  int64
	maxTotal int
	exclude  map[string]bool
}

// DefaultMaxText is the largest file Diff shows as lines. Past it a file
// is compared by its hash and shown as binary: an agent's 1 GiB file must
// not cost swetouch 1 GiB, twice.
const DefaultMaxText = 8 << 20

// DefaultMaxTotal is the most the diff shows as lines in all; past it,
// every further file that changed is still named, as binary: thousands
// of files of text must not cost swetouch their size again in memory.
const DefaultMaxTotal = 256 << 20

// WithMaxTotal sets the most the diff shows as lines in all.
func WithMaxTotal(n int) DiffOption { return func(d *differ) { d.maxTotal = n } }

// WithMaxText sets the largest file shown as lines.
func WithMaxText(n int64) DiffOption { return func(d *differ) { d.maxText = n } }

// Excluding leaves files out of the diff (a generator's account of its
// edit, which is never part of the edit).
func Excluding(paths ...string) DiffOption {
	return func(d *differ) {
		for _, p := range paths {
			d.exclude[p] = true
		}
	}
}

// Diff compares root with the start: every regular file and link the
// verifier's copy would hold (.git directories aside, ignored files
// included), in git's unified format with three lines of context, sorted
// by path, and the files it names. It reads root itself, never running
// anything, and opens only regular files, without following links or
// waiting.
func (t *Tree) Diff(root string, opts ...DiffOption) ([]byte, []File, error) {
	d := differ{maxText: DefaultMaxText, maxTotal: DefaultMaxTotal, exclude: map[string]bool{}}
	for _, o := range opts {
		o(&d)
	}
	now := map[string]fs.FileMode{}
	if err := walk(root, func(rel string, mode fs.FileMode) { now[rel] = mode }); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoTree, err)
	}
	paths := make([]string, 0, len(now)+len(t.files))
	for p := range now {
		paths = append(paths, p)
	}
	for p := range t.files {
		if _, ok := now[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out bytes.Buffer
	var files []File
	for _, p := range paths {
		if d.exclude[p] {
			continue
		}
		oldMode, had := t.files[p]
		newMode, has := now[p]
		var o, n *side
		if had {
			o = d.read(t.dir, p, oldMode)
		}
		if has {
			n = d.read(root, p, newMode)
		}
		if o == nil && n == nil {
			continue
		}
		if o != nil && n != nil && o.mode != n.mode && (o.mode == linkMode || n.mode == linkMode) {
			// git shows a type change as the old file deleted and the new
			// one added
			files = append(files, d.write(&out, t, p, o, nil, 'T'), d.write(&out, t, p, nil, n, 'T'))
			continue
		}
		if o != nil && n != nil && o.mode == n.mode && o.sum == n.sum {
			continue
		}
		status := byte('M')
		switch {
		case o == nil:
			status = 'A'
		case n == nil:
			status = 'D'
		}
		files = append(files, d.write(&out, t, p, o, n, status))
	}
	return out.Bytes(), files, nil
}

const linkMode = "120000"

// side is one version of a file: its git mode, its blob id, and its
// content when it is shown as lines.
type side struct {
	mode   string
	sum    [sha1.Size]byte // git's blob id: sha1 of "blob N\x00" and the content
	text   string
	binary bool
}

// read reads one side of a file; nil when it is gone or unreadable (a
// file swapped for a FIFO since the walk, a directory now).
func (d differ) read(root, rel string, mode fs.FileMode) *side {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if mode&fs.ModeSymlink != 0 {
		l, err := os.Readlink(p)
		if err != nil {
			return nil
		}
		return &side{mode: linkMode, sum: blobID([]byte(l)), text: l}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	s := &side{mode: "100644"}
	if info.Mode()&0o100 != 0 {
		s.mode = "100755"
	}
	if info.Size() > d.maxText {
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", info.Size())
		if _, err := io.Copy(h, f); err != nil {
			return nil
		}
		h.Sum(s.sum[:0])
		s.binary = true
		return s
	}
	b, err := io.ReadAll(io.LimitReader(f, d.maxText+1))
	if err != nil {
		return nil
	}
	s.sum = blobID(b)
	s.binary = bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
	if !s.binary {
		s.text = string(b)
	}
	return s
}

func blobID(b []byte) (sum [sha1.Size]byte) {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	h.Sum(sum[:0])
	return sum
}

// write renders one file's section as git does, and says what it was.
func (d differ) write(w *bytes.Buffer, t *Tree, rel string, o, n *side, status byte) File {
	binary, fn := t.diffOf(rel)
	f := File{Path: rel, Status: status}
	a, b := quote("a/"+rel), quote("b/"+rel)
	fmt.Fprintf(w, "diff --git %s %s\n", a, b)
	var zero [sha1.Size]byte
	oldSum, newSum := zero, zero
	switch {
	case o == nil:
		f.NewMode, newSum = n.mode, n.sum
		fmt.Fprintf(w, "new file mode %s\n", n.mode)
	case n == nil:
		f.OldMode, oldSum = o.mode, o.sum
		fmt.Fprintf(w, "deleted file mode %s\n", o.mode)
	default:
		f.OldMode, f.NewMode, oldSum, newSum = o.mode, n.mode, o.sum, n.sum
		if o.mode != n.mode {
			fmt.Fprintf(w, "old mode %s\nnew mode %s\n", o.mode, n.mode)
		}
	}
	if oldSum == newSum {
		return f // a mode change alone
	}
	fmt.Fprintf(w, "index %s..%s", short(oldSum), short(newSum))
	if o != nil && n != nil && o.mode == n.mode {
		fmt.Fprintf(w, " %s", o.mode)
	}
	w.WriteByte('\n')
	from, to := a, b
	if o == nil {
		from = "/dev/null"
	}
	if n == nil {
		to = "/dev/null"
	}
	if binary || (o != nil && o.binary) || (n != nil && n.binary) || w.Len() > d.maxTotal {
		f.Binary = true
		fmt.Fprintf(w, "Binary files %s and %s differ\n", from, to)
		return f
	}
	var ot, nt string
	if o != nil {
		ot = o.text
	}
	if n != nil {
		nt = n.text
	}
	if ot == "" && nt == "" {
		return f // an empty file made or removed: git shows no hunk
	}
	fmt.Fprintf(w, "--- %s\n+++ %s\n", from, to)
	var hunks strings.Builder
	linediff.HunksWith(&hunks, linediff.Lines(ot, nt), fn)
	w.WriteString(hunks.String())
	return f
}

func short(sum [sha1.Size]byte) string { return hex.EncodeToString(sum[:])[:7] }

// quote writes a path as git does with core.quotePath on: in double
// quotes, with C escapes, when it holds a control character, a quote, a
// backslash or a byte past ASCII.
func quote(p string) string {
	needs := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			needs = true
			break
		}
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/internal/safefile"
)

// How a hunk landed.
const (
	Exact          = "exact"           // at its recorded position
	Offset         = "offset"          // the nearest unique exact match elsewhere
	Anchored       = "anchored"        // context matched with whitespace or trimmed context
	AlreadyApplied = "already-applied" // its result is already there
	// OverAgent: the agent had replaced exactly the lines the hunk
	// removes with its own, and the hunk's lines replace the agent's (the
	// user re-asserts the edit); the context, even between the hunk's
	// changes, stays as the agent left it
	OverAgent = "over-agent"
	Failed    = "failed"
)

// HunkReport says where one hunk landed. Start..End are the lines of the
// hunk's new side in the resulting file (for a pure deletion, Start is the
// line after the removed block and End = Start-1).
type HunkReport struct {
	File   string `json:"file"`
	Hunk   int    `json:"hunk"`
	Method string `json:"method"`
	Start  int    `json:"start,omitempty"`
	End    int    `json:"end,omitempty"`
	Offset int    `json:"offset,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Report is the outcome of applying a patch.
type Report struct {
	Hunks []HunkReport `json:"hunks"`
	// Changed lists the files whose bytes (or mode) changed.
	Changed []string `json:"changed"`
	// Applied is true when every hunk landed or was already there.
	Applied bool `json:"applied"`
}

// Failed reports whether a hunk could not be placed.
func (r *Report) Failed() bool { return !r.Applied }

// FileSystem is where a patch is applied: the workspace.
type FileSystem interface {
	ReadFile(name string) ([]byte, fs.FileMode, error)
	WriteFile(name string, data []byte, mode fs.FileMode) error
	Remove(name string) error
}

// EscapeError is a path that would take a read or a write outside a Dir.
type EscapeError struct {
	Path string
	Link bool // through a linked directory
}

func (e *EscapeError) Error() string {
	if e.Link {
		return fmt.Sprintf("path %q leaves the directory through a link", e.Path)
	}
	return fmt.Sprintf("path %q leaves the directory", e.Path)
}

// Dir is a FileSystem rooted at a directory; writes are atomic (a temp file
// renamed over the target).
type Dir string

func (d Dir) path(name string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", &EscapeError{Path: name}
	}
	p := filepath.Join(string(d), clean)
	// beneath the root through links too: the nearest existing parent,
	// its links resolved, must still be inside (a workspace's directory
	// linked to /etc would take the write there)
	root, err := filepath.EvalSymlinks(string(d))
	if err != nil {
		return "", err
	}
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			if !safefile.Inside(real, root) {
				return "", &EscapeError{Path: name, Link: true}
			}
			break
		}
		if dir == string(d) || dir == filepath.Dir(dir) {
			return "", err
		}
	}
	return p, nil
}

// ReadFile reads a file and its permission bits.
func (d Dir) ReadFile(name string) ([]byte, fs.FileMode, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, 0, err
	}
	b, err := safefile.ReadIn(string(d), filepath.Clean(filepath.FromSlash(name)))
	return b, st.Mode().Perm(), err
}

// Check refuses a name that leaves the directory, by itself or through
// a linked directory.
func (d Dir) Check(name string) error {
	_, err := d.path(name)
	return err
}

// WriteFile replaces a file atomically with the given mode.
func (d Dir) WriteFile(name string, data []byte, mode fs.FileMode) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := writeBeneath(string(d), filepath.Clean(filepath.FromSlash(name)), data, mode); err != errNoOpenat2 {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(p, mode, data)
}

// Remove deletes a file.
func (d Dir) Remove(name string) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := removeBeneath(string(d), filepath.Clean(filepath.FromSlash(name))); err != errNoOpenat2 {
		return err
	}
	return os.Remove(p)
}

// Option configures Apply.
type Option func(*config)

type config struct{ dryRun bool }

// DryRun computes the report without writing anything.
func DryRun() Option { return func(c *config) { c.dryRun = true } }

// Apply applies the file diffs to fsys. Every file is computed in memory
// first; only when every hunk of every file lands (or is already there) are
// the files written. On failure nothing is written and the report says
// which hunks failed.
func Apply(fsys FileSystem, diffs []*FileDiff, opts ...Option) (*Report, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	// every path first: one that escapes refuses the whole patch before
	// anything is read or written
	if c, ok := fsys.(interface{ Check(name string) error }); ok {
		for _, fd := range diffs {
			for _, p := range []string{fd.OldPath, fd.NewPath} {
				if p == "" {
					continue
				}
				if err := c.Check(p); err != nil {
					return nil, err
				}
			}
		}
	}
	rep := &Report{Applied: true, Hunks: []HunkReport{}, Changed: []string{}}
	type write struct {
		name   string
		data   []byte
		mode   fs.FileMode
		remove string
	}
	var writes []write
	for _, fd := range diffs {
		res, err := applyFile(fsys, fd, rep)
		if err != nil {
			return nil, err
		}
		if res == nil {
			continue
		}
		writes = append(writes, write{res.name, res.data, res.mode, res.remove})
		rep.Changed = append(rep.Changed, fd.Path())
	}
	if !rep.Applied || cfg.dryRun {
		return rep, nil
	}
	for _, w := range writes {
		if w.data != nil {
			if err := fsys.WriteFile(w.name, w.data, w.mode); err != nil {
				return rep, err
			}
		}
		if w.remove != "" {
			if err := fsys.Remove(w.remove); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return rep, err
			}
		}
	}
	return rep, nil
}

type fileResult struct {
	name   string
	data   []byte
	mode   fs.FileMode
	remove string
}

func parseMode(s string, def fs.FileMode) fs.FileMode {
	if s == "" {
		return def
	}
	v, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return def
	}
	return fs.FileMode(v).Perm()
}

// applyFile computes a file's new content. It returns nil when nothing
// changes (all hunks already applied).
func applyFile(fsys FileSystem, fd *FileDiff, rep *Report) (*fileResult, error) {
	name := fd.Path()
	oldName := fd.OldPath
	if oldName == "" {
		oldName = name
	}
	data, mode, err := fsys.ReadFile(oldName)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	fail := func(msg string) (*fileResult, error) {
		rep.Applied = false
		rep.Hunks = append(rep.Hunks, HunkReport{File: name, Hunk: 0, Method: Failed, Error: msg})
		return nil, nil
	}
	switch {
	case len(fd.Hunks) == 0 && !fd.IsNew() && !fd.IsDelete() && !fd.Rename && fd.OldMode == fd.NewMode:
		// nothing to apply is no success: a diff whose hunks were lost
		// (Parse refuses one; a caller may build its own) says so
		return fail("the diff has no hunk and changes no name or mode: nothing to apply")
	case fd.IsNew():
		want := newSide(fd)
		if exists {
			if string(data) == want {
				for i := range fd.Hunks {
					rep.Hunks = append(rep.Hunks, HunkReport{File: name, Hunk: i + 1, Method: AlreadyApplied, Start: 1, End: countLines(want)})
				}
				return nil, nil
			}
			// never overwrite a file someone else created at that path
			return fail("new file already exists with other content")
		}
		for i := range fd.Hunks {
			rep.Hunks = append(rep.Hunks, HunkReport{File: name, Hunk: i + 1, Method: Exact, Start: 1, End: countLines(want)})
		}
		return &fileResult{name: name, data: []byte(want), mode: parseMode(fd.NewMode, 0o644)}, nil
	case !exists && fd.IsDelete():
		for i := range fd.Hunks {
			rep.Hunks = append(rep.Hunks, HunkReport{File: name, Hunk: i + 1, Method: AlreadyApplied})
		}
		return nil, nil
	case !exists:
		return fail("file does not exist")
	}
	if len(data) >= math.MaxInt32 {
		return fail("file is 2 GiB or larger")
	}
	pl := &placer{im: newImage(string(data))}
	changed, ok := false, true
	first := len(rep.Hunks)
	// delta is how far from their recorded lines earlier hunks landed:
	// where the agent moved code, later hunks have likely moved as much.
	delta := 0
	for i, h := range fd.Hunks {
		hr := pl.locate(h, delta)
		hr.File, hr.Hunk = name, i+1
		rep.Hunks = append(rep.Hunks, hr)
		switch hr.Method {
		case Failed:
			ok = false
			continue
		case AlreadyApplied:
		default:
			changed = true
		}
		delta += hr.Offset
	}
	if !ok {
		rep.Applied = false
		return nil, nil
	}
	landed := make([]*HunkReport, 0, len(fd.Hunks))
	for i := first; i < len(rep.Hunks); i++ {
		landed = append(landed, &rep.Hunks[i])
	}
	out := pl.result(landed)
	if fd.IsDelete() {
		if len(out) != 0 {
			rep.Applied = false
			rep.Hunks = append(rep.Hunks, HunkReport{File: name, Method: Failed, Error: "deleted file still has content after removing its lines"})
			return nil, nil
		}
		return &fileResult{name: name, remove: name}, nil
	}
	newMode := parseMode(fd.NewMode, mode)
	if fd.OldMode == fd.NewMode {
		newMode = mode
	}
	if !changed && newMode == mode && !fd.Rename {
		return nil, nil
	}
	res := &fileResult{name: name, data: out, mode: newMode}
	if fd.Rename && fd.OldPath != name {
		res.remove = fd.OldPath
	}
	return res, nil
}

func newSide(fd *FileDiff) string {
	var b strings.Builder
	for _, h := range fd.Hunks {
		for _, l := range h.Lines {
			if l.Kind == '+' {
				b.WriteString(l.Text)
				if !l.NoNewline {
					b.WriteByte('\n')
				}
			}
		}
	}
	return b.String()
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

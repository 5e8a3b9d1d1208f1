package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// Line is one line of a hunk: Kind is ' ', '-' or '+'. NoNewline marks the
// last line of its side when the diff says "\ No newline at end of file".
type Line struct {
	Kind      byte
	Text      string
	NoNewline bool
}

// Hunk is one @@ block.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Section is the header's text after the second @@: git's name for
	// the enclosing function or class.
	Section string
	Lines   []Line
	// Pos is the 1-based line of the @@ header in the diff text.
	Pos int
}

// FileDiff is the change to one file. OldPath is empty for a new file,
// NewPath empty for a deletion.
type FileDiff struct {
	// Line is where the file's section starts in the diff (1-based).
	Line             int
	OldPath, NewPath string
	OldMode, NewMode string
	Rename           bool
	Hunks            []*Hunk
}

// Path is the file the diff changes (its new name when renamed).
func (f *FileDiff) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// IsNew reports a file created by the diff.
func (f *FileDiff) IsNew() bool { return f.OldPath == "" && f.NewPath != "" }

// IsDelete reports a file removed by the diff.
func (f *FileDiff) IsDelete() bool { return f.NewPath == "" && f.OldPath != "" }

// ParseError says where a diff is malformed.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse reads a git or plain unified diff, strictly: every line is a
// file's header, a hunk's header or one of its lines, or the diff is
// refused where the first other line is. Skipped, a broken hunk header
// ("@! -3,6 +3,7 @@") took its hunk with it, and the diff applied nothing
// and called itself applied. Blank lines at the very end are allowed. A
// binary patch is an error: it cannot be applied as text. A file section
// that changes nothing (no hunk, no creation, deletion, rename or mode) is
// an error too. Headers is the lenient reading, for final diffs.
func Parse(text string) ([]*FileDiff, error) {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var files []*FileDiff
	var cur *FileDiff
	gitHeader := false
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		l := strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		no := i + 1
		switch {
		case strings.HasPrefix(l, "diff --git "):
			a, b, ok := gitPaths(l[len("diff --git "):])
			if !ok {
				return nil, &ParseError{no, "diff --git header without a/ and b/ paths"}
			}
			cur = &FileDiff{Line: no, OldPath: a, NewPath: b}
			files = append(files, cur)
			gitHeader = true
		case cur != nil && gitHeader && isExtendedHeader(l):
			if err := cur.extendedHeader(l, no); err != nil {
				return nil, err
			}
		case strings.HasPrefix(l, "GIT binary patch") || strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ"):
			name := "?"
			if cur != nil {
				name = cur.Path()
			}
			return nil, &ParseError{no, fmt.Sprintf("binary patch for %s cannot be applied as text", name)}
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			oldP := headerPath(l[4:])
			newP := headerPath(strings.TrimRight(lines[i+1][4:], "\r\n"))
			i++
			if cur == nil || !gitHeader || len(cur.Hunks) > 0 {
				cur = &FileDiff{Line: no}
				files = append(files, cur)
			}
			gitHeader = false
			cur.OldPath, cur.NewPath = oldP, newP
		case strings.HasPrefix(l, "@@ "):
			if cur == nil {
				return nil, &ParseError{no, "hunk before any file header"}
			}
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			cur.Hunks = append(cur.Hunks, h)
			gitHeader = false
			i = next - 1
		case strings.HasPrefix(l, "diff ") && !gitHeader:
			// a plain diff's command line ("diff -u a/x b/x") before its ---/+++
		case strings.TrimSpace(l) == "" && blankFrom(lines, i):
			i = len(lines)
		default:
			return nil, notDiff(l, no, len(files) > 0)
		}
	}
	if len(files) == 0 {
		return nil, &ParseError{1, "no file diffs found"}
	}
	if err := checkFiles(files); err != nil {
		return nil, err
	}
	return files, nil
}

// extendedHeaders are the lines git writes between "diff --git" and a
// file's ---/+++ or hunks.
var extendedHeaders = []string{"new file mode ", "deleted file mode ", "old mode ", "new mode ",
	"rename from ", "rename to ", "index ", "similarity index ", "dissimilarity index ", "copy from ", "copy to "}

func isExtendedHeader(l string) bool {
	for _, p := range extendedHeaders {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// extendedHeader takes one of git's extended header lines into f.
func (f *FileDiff) extendedHeader(l string, no int) error {
	switch {
	case strings.HasPrefix(l, "new file mode "):
		f.OldPath, f.NewMode = "", strings.TrimPrefix(l, "new file mode ")
	case strings.HasPrefix(l, "deleted file mode "):
		f.NewPath, f.OldMode = "", strings.TrimPrefix(l, "deleted file mode ")
	case strings.HasPrefix(l, "old mode "):
		f.OldMode = strings.TrimPrefix(l, "old mode ")
	case strings.HasPrefix(l, "new mode "):
		f.NewMode = strings.TrimPrefix(l, "new mode ")
	case strings.HasPrefix(l, "rename from "):
		f.OldPath, f.Rename = unquote(strings.TrimPrefix(l, "rename from ")), true
	case strings.HasPrefix(l, "rename to "):
		f.NewPath, f.Rename = unquote(strings.TrimPrefix(l, "rename to ")), true
	case strings.HasPrefix(l, "index "):
		if fs := strings.Fields(l); len(fs) == 3 && f.NewMode == "" {
			f.OldMode, f.NewMode = fs[2], fs[2]
		}
	case strings.HasPrefix(l, "copy "):
		return &ParseError{no, "a copy cannot be applied: only creations, deletions, renames and changes"}
	}
	// similarity and dissimilarity say nothing Apply needs
	return nil
}

// notDiff is the error for line no, which is none of a diff's lines.
func notDiff(l string, no int, started bool) error {
	switch {
	case !started:
		return &ParseError{no, fmt.Sprintf("no file diffs found: %s is not a diff's header", clip(l))}
	case strings.HasPrefix(l, "@"):
		return &ParseError{no, fmt.Sprintf("%s is not part of a diff: a hunk's header is \"@@ -start,count +start,count @@\"", clip(l))}
	}
	return &ParseError{no, fmt.Sprintf("%s is not part of a diff: neither a header, a hunk, nor a hunk's line", clip(l))}
}

// checkFiles refuses a file section that names no file, changes nothing,
// or names a path a diff may not touch.
func checkFiles(files []*FileDiff) error {
	for _, f := range files {
		if f.OldPath == "" && f.NewPath == "" {
			return &ParseError{max(f.Line, 1), "a file diff names no file"}
		}
		if len(f.Hunks) == 0 && !f.IsNew() && !f.IsDelete() && !f.Rename && f.OldMode == f.NewMode {
			return &ParseError{max(f.Line, 1), fmt.Sprintf("the section for %s has no hunk and changes no name or mode: it would apply nothing", f.Path())}
		}
		for _, p := range []string{f.OldPath, f.NewPath} {
			if err := CheckPath(p); err != nil {
				return &ParseError{max(f.Line, 1), err.Error()}
			}
		}
	}
	return nil
}

// blankFrom reports whether lines i and after are all blank.
func blankFrom(lines []string, i int) bool {
	for _, l := range lines[i:] {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// clip quotes a line for an error, at most 60 bytes of it.
func clip(l string) string {
	if len(l) > 60 {
		return strconv.Quote(l[:60]) + "…"
	}
	return strconv.Quote(l)
}

// gitPaths splits "a/X b/Y", either name C-quoted as git writes one with
// unusual bytes ("a/tab\there").
func gitPaths(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := quoted(s)
		if !ok || !strings.HasPrefix(rest, " ") {
			return "", "", false
		}
		rest = rest[1:]
		b := rest
		if strings.HasPrefix(rest, `"`) {
			if b, rest, ok = quoted(rest); !ok || rest != "" {
				return "", "", false
			}
		}
		return strip(a), strip(b), true
	}
	if k := strings.Index(s, ` "b/`); k > 0 && strings.HasPrefix(s, "a/") {
		b, rest, ok := quoted(s[k+1:])
		if ok && rest == "" {
			return s[2:k], strip(b), true
		}
	}
	// the names are equal except for the prefix in the common case
	if k := strings.Index(s, " b/"); k > 0 && strings.HasPrefix(s, "a/") {
		return s[2:k], s[k+3:], true
	}
	return "", "", false
}

// quoted reads a C-quoted name at the start of s and returns it unquoted
// and what follows it.
func quoted(s string) (name, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return unquote(s[:i+1]), s[i+1:], true
		}
	}
	return "", "", false
}

// unquote undoes git's C quoting of a path (\t, \n, \", \\, octal bytes);
// a name that is not quoted comes back as it is.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3':
			if i+2 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) {
				b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
				i += 2
			} else {
				b.WriteByte(e)
			}
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// CheckPath refuses a path a diff may not touch: absolute, climbing out
// with "..", inside .git, or holding a NUL ("" is no file: fine).
func CheckPath(p string) error {
	switch {
	case p == "":
		return nil
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q is absolute", p)
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q holds a NUL", p)
	}
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "..":
			return fmt.Errorf("path %q leaves the workspace", p)
		case ".git":
			return fmt.Errorf("path %q is inside .git", p)
		}
	}
	return nil
}

func strip(p string) string {
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		return p[2:]
	}
	return p
}

// headerPath reads the path of a ---/+++ line; /dev/null is "".
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		s = unquote(s)
	}
	if s == "/dev/null" {
		return ""
	}
	return strip(s)
}

func parseRange(s string) (start, count int, err error) {
	a, b, has := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, fmt.Errorf("bad range %q", s)
		}
	}
	return start, count, nil
}

func parseHunk(lines []string, i int) (*Hunk, int, error) {
	no := i + 1
	l := strings.TrimRight(lines[i], "\r\n")
	rest := l[3:]
	end := strings.Index(rest, " @@")
	if end < 0 {
		return nil, 0, &ParseError{no, "hunk header without closing @@"}
	}
	f := strings.Fields(rest[:end])
	if len(f) != 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return nil, 0, &ParseError{no, fmt.Sprintf("bad hunk header %q", l)}
	}
	h := &Hunk{Pos: no, Section: strings.TrimSpace(rest[end+3:])}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(f[0][1:]); err != nil {
		return nil, 0, &ParseError{no, err.Error()}
	}
	if h.NewStart, h.NewLines, err = parseRange(f[1][1:]); err != nil {
		return nil, 0, &ParseError{no, err.Error()}
	}
	oldN, newN := 0, 0
	j := i + 1
	for ; j < len(lines) && (oldN < h.OldLines || newN < h.NewLines); j++ {
		raw := strings.TrimSuffix(lines[j], "\n")
		raw = strings.TrimSuffix(raw, "\r")
		if raw == "" {
			// an empty context line whose space was stripped
			raw = " "
		}
		kind := raw[0]
		switch kind {
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
		case '+':
			newN++
		case '\\':
			markNoNewline(h)
			continue
		default:
			return nil, 0, &ParseError{j + 1, fmt.Sprintf("hunk at line %d: expected %d old and %d new lines, got %d and %d", no, h.OldLines, h.NewLines, oldN, newN)}
		}
		h.Lines = append(h.Lines, Line{Kind: kind, Text: raw[1:]})
	}
	if oldN != h.OldLines || newN != h.NewLines {
		return nil, 0, &ParseError{no, fmt.Sprintf("hunk is truncated: expected %d old and %d new lines, got %d and %d", h.OldLines, h.NewLines, oldN, newN)}
	}
	if j < len(lines) && strings.HasPrefix(lines[j], `\`) {
		markNoNewline(h)
		j++
	}
	return h, j, nil
}

func markNoNewline(h *Hunk) {
	if n := len(h.Lines); n > 0 {
		h.Lines[n-1].NoNewline = true
	}
}

// Headers lists the files a git diff names, from its "diff --git"
// headers alone: never an error, whatever the sections hold (a binary
// file, a path Parse refuses to apply). It is for reading what a diff
// changed (an audit of a final diff), where one odd file must not hide
// the others.
func Headers(text string) []*FileDiff {
	var files []*FileDiff
	var cur *FileDiff
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur = nil
			if a, b, ok := gitPaths(l[len("diff --git "):]); ok {
				cur = &FileDiff{OldPath: a, NewPath: b}
				files = append(files, cur)
			}
		case cur == nil:
		case strings.HasPrefix(l, "new file mode "):
			cur.OldPath, cur.NewMode = "", strings.TrimPrefix(l, "new file mode ")
		case strings.HasPrefix(l, "deleted file mode "):
			cur.NewPath, cur.OldMode = "", strings.TrimPrefix(l, "deleted file mode ")
		case strings.HasPrefix(l, "@@ "), strings.HasPrefix(l, "Binary files "):
			cur = nil // the header is over
		}
	}
	return files
}

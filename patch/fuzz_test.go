package patch

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzParse: the diff parser never panics; what it accepts has hunks whose
// line counts match their headers, and every file section changes
// something (a hunk, a creation, deletion, rename or mode): a section
// whose hunk was lost to a broken header is refused, not applied empty.
func FuzzParse(f *testing.F) {
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
	f.Add("diff --git a/x b/y\nrename from x\nrename to y\n")
	f.Add("diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n")
	f.Fuzz(func(t *testing.T, s string) {
		fds, err := Parse(s)
		if err != nil {
			return
		}
		for _, fd := range fds {
			if len(fd.Hunks) == 0 && !fd.IsNew() && !fd.IsDelete() && !fd.Rename && fd.OldMode == fd.NewMode {
				t.Fatalf("a section for %s that changes nothing", fd.Path())
			}
			for _, h := range fd.Hunks {
				old, new := sides(h.Lines)
				if len(old) != h.OldLines || len(new) != h.NewLines {
					t.Fatalf("hunk counts %d/%d, header %d/%d", len(old), len(new), h.OldLines, h.NewLines)
				}
			}
		}
	})
}

// FuzzApply: applying any parsed diff to any content never panics, a
// failed application changes nothing, and a landing changes only what the
// hunks' - and + lines say: every line the result gained is one of their
// + lines, and every line it lost one of their - lines (up to
// whitespace), or the agent's rewrite of them where a hunk landed
// over-agent. The diff's context is never written over the file's lines.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n")
	f.Add("a\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -2 +2,2 @@\n b\n+c\n")
	// context between two changes that the file holds indented otherwise
	// stays the file's
	f.Add("a\n  b\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n-c\n+C\n")
	for _, c := range fallbackCases {
		f.Add(c.file, c.diff)
	}
	// the agent changed a line the hunk holds as context between its
	// changes (issue 50): it must stay the agent's
	for _, c := range contextCases {
		f.Add(c.file, c.diff)
	}
	f.Fuzz(func(t *testing.T, content, diff string) {
		fds, err := Parse(diff)
		if err != nil {
			return
		}
		fs := memFS{"f": content}
		for _, fd := range fds {
			fd.OldPath, fd.NewPath, fd.Rename = "f", "f", false
		}
		rep, err := Apply(fs, fds)
		if err != nil {
			return
		}
		if !rep.Applied && fs["f"] != content {
			t.Fatalf("failed apply changed the file")
		}
		if rep.Applied && !strings.Contains(strings.Join(rep.Changed, ","), "f") && fs["f"] != content {
			t.Fatalf("file changed but not reported")
		}
		if rep.Applied && len(fds) == 1 && !fds[0].IsDelete() {
			checkOnlyHunkLines(t, fds[0], rep, content, fs["f"])
		}
	})
}

// checkOnlyHunkLines checks a landing against a line diff of the file
// before and after: gained lines are + lines, lost lines - lines (or
// the agent's, over-agent). Lines the diff moves (lost here, gained
// there, as a line diff may pair them) count as neither.
func checkOnlyHunkLines(t *testing.T, fd *FileDiff, rep *Report, before, after string) {
	t.Helper()
	a, b := splitKeep(before), splitKeep(after)
	if len(a)*len(b) > 1<<20 {
		// too long for a line diff: what the file gained, counted
		for _, l := range gainedLines(before, after) {
			if !isPlusLine(fd, l) {
				t.Fatalf("the landing wrote %q, which is no + line of the diff", l)
			}
		}
		return
	}
	lost, gained := lineDiff(a, b)
	var minus, plus []string
	for _, h := range fd.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case '-':
				minus = append(minus, l.Text)
			case '+':
				plus = append(plus, l.Text)
			}
		}
	}
	overAgent := slices.ContainsFunc(rep.Hunks, func(h HunkReport) bool { return h.Method == OverAgent })
	for _, l := range gained {
		if !slices.Contains(plus, l) && !slices.Contains(lost, l) {
			t.Fatalf("the landing wrote %q, which is no + line of the diff", l)
		}
	}
	for _, l := range lost {
		if overAgent || slices.Contains(gained, l) || slices.Contains(plus, l) {
			continue
		}
		if !slices.ContainsFunc(minus, func(m string) bool { return sameFields(m, l) }) {
			t.Fatalf("the landing removed %q, which is no - line of the diff", l)
		}
	}
}

// splitKeep splits a file into line texts, without terminators.
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := range ls {
		ls[i] = strings.TrimSuffix(ls[i], "\r")
	}
	return ls
}

// lineDiff is a longest-common-subsequence diff of two line lists: the
// lines only a has, and those only b has.
func lineDiff(a, b []string) (onlyA, onlyB []string) {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			onlyA, i = append(onlyA, a[i]), i+1
		default:
			onlyB, j = append(onlyB, b[j]), j+1
		}
	}
	return append(onlyA, a[i:]...), append(onlyB, b[j:]...)
}

type memFS map[string]string

func (m memFS) ReadFile(n string) ([]byte, fsMode, error) {
	c, ok := m[n]
	if !ok {
		return nil, 0, errNotExist
	}
	return []byte(c), 0o644, nil
}
func (m memFS) WriteFile(n string, b []byte, _ fsMode) error { m[n] = string(b); return nil }
func (m memFS) Remove(n string) error                        { delete(m, n); return nil }

// FuzzSameFields: the allocation-free whitespace comparison agrees with
// strings.Fields, and lines it calls equal share a search key (a key
// mismatch would make the anchored search miss a match). b is a with its
// whitespace runs rewritten from ws, so equal pairs are common.
func FuzzSameFields(f *testing.F) {
	f.Add("  return  x(1)\t", " \t\u00a0")
	f.Add("a\u00a0b", "  ")
	f.Add("x\xffy z", "\v")
	f.Fuzz(func(t *testing.T, a, ws string) {
		var b strings.Builder
		gap := 0
		for i, w := range strings.FieldsFunc(a, unicode.IsSpace) {
			if ws != "" && (i > 0 || gap%2 == 0) {
				b.WriteString(ws[:gap%len(ws)+1])
			} else if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			gap += len(w)
		}
		for _, pair := range [][2]string{{a, b.String()}, {a, ws}} {
			x, y := pair[0], pair[1]
			want := slices.Equal(strings.FieldsFunc(x, unicode.IsSpace), strings.FieldsFunc(y, unicode.IsSpace))
			if got := sameFields(x, y); got != want {
				t.Fatalf("sameFields(%q, %q) = %v, strings.Fields says %v", x, y, got, want)
			}
			if want && lineKey(x) != lineKey(y) {
				t.Fatalf("equal up to whitespace but keys differ: %q %q", x, y)
			}
		}
	})
}

package patch

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzParse: the diff parser never panics; what it accepts has hunks whose
// line counts match their headers.
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
			for _, h := range fd.Hunks {
				old, new := sides(h.Lines)
				if len(old) != h.OldLines || len(new) != h.NewLines {
					t.Fatalf("hunk counts %d/%d, header %d/%d", len(old), len(new), h.OldLines, h.NewLines)
				}
			}
		}
	})
}

// FuzzApply: applying any parsed diff to any content never panics, and a
// failed application changes nothing.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n")
	f.Add("a\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -2 +2,2 @@\n b\n+c\n")
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
	})
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

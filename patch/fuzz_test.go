package patch

import (
	"strings"
	"testing"
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

package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func apply(t *testing.T, files map[string]string, diff string) (*Report, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fds, err := Parse(diff)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Apply(Dir(dir), fds)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return rep, got
}

const base = "a\nb\nc\nd\ne\nf\ng\n"

func TestApplyMethods(t *testing.T) {
	diff := "--- a/f.txt\n+++ b/f.txt\n@@ -3,3 +3,4 @@\n c\n d\n+X\n e\n"
	tests := []struct {
		name, file, want, method string
		start                    int
	}{
		{"exact", base, "a\nb\nc\nd\nX\ne\nf\ng\n", Exact, 3},
		{"offset", "0\n1\n" + base, "0\n1\na\nb\nc\nd\nX\ne\nf\ng\n", Offset, 5},
		{"already applied", "a\nb\nc\nd\nX\ne\nf\ng\n", "a\nb\nc\nd\nX\ne\nf\ng\n", AlreadyApplied, 3},
		{"whitespace context", "a\nb\nc  \nd\ne\nf\ng\n", "a\nb\nc  \nd\nX\ne\nf\ng\n", Anchored, 3},
		{"context changed below", "a\nb\nc\nd\nE!\nf\ng\n", "a\nb\nc\nd\nX\nE!\nf\ng\n", Anchored, 3},
		{"crlf kept", strings.ReplaceAll(base, "\n", "\r\n"), strings.ReplaceAll("a\nb\nc\nd\nX\ne\nf\ng\n", "\n", "\r\n"), Exact, 3},
		{"no final newline kept", "a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nd\nX\ne\nf\ng", Exact, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, got := apply(t, map[string]string{"f.txt": tt.file}, diff)
			if !rep.Applied {
				t.Fatalf("not applied: %+v", rep.Hunks)
			}
			if got["f.txt"] != tt.want {
				t.Errorf("content %q want %q", got["f.txt"], tt.want)
			}
			if h := rep.Hunks[0]; h.Method != tt.method || h.Start != tt.start {
				t.Errorf("hunk %+v want method %s start %d", h, tt.method, tt.start)
			}
			if len(got) != 1 {
				t.Errorf("litter: %v", got)
			}
		})
	}
}

func TestApplyFailureLeavesFilesUntouched(t *testing.T) {
	diff := "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
	rep, got := apply(t, map[string]string{"f.txt": "a\nb\n", "g.txt": "p\nq\nr\n"}, diff)
	if rep.Applied {
		t.Fatal("applied a hunk whose context is gone")
	}
	if got["f.txt"] != "a\nb\n" || got["g.txt"] != "p\nq\nr\n" || len(got) != 2 {
		t.Errorf("files touched or litter left: %q", got)
	}
}

// TestApplyAmbiguityReported: equally good places on both sides of the
// recorded line are refused, exact or whitespace-tolerant, and the file
// is left as it was.
func TestApplyAmbiguityReported(t *testing.T) {
	tests := []struct{ name, file, diff string }{
		{"exact", "x\nreturn None\ny\nq\nq\nq\nx\nreturn None\ny\n", "--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n x\n-return None\n+return 0\n y\n"},
		{"whitespace-tolerant", "x\n  y\nz\nq\nq\nq\nx\n  y\nz\n", "--- a/f\n+++ b/f\n@@ -4,3 +4,4 @@\n x\n y\n+new\n z\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, got := apply(t, map[string]string{"f": tt.file}, tt.diff)
			if rep.Applied || !strings.Contains(rep.Hunks[0].Error, "ambiguous") {
				t.Fatalf("want ambiguity, got %+v", rep.Hunks)
			}
			if got["f"] != tt.file {
				t.Error("file changed")
			}
		})
	}
}

func TestNewFileNeverOverwrites(t *testing.T) {
	diff := "diff --git a/n.go b/n.go\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1,2 @@\n+package n\n+var X = 1\n"
	rep, got := apply(t, map[string]string{}, diff)
	if !rep.Applied || got["n.go"] != "package n\nvar X = 1\n" {
		t.Fatalf("new file: %+v %q", rep, got)
	}
	rep, got = apply(t, map[string]string{"n.go": "package n // agent's\n"}, diff)
	if rep.Applied || got["n.go"] != "package n // agent's\n" {
		t.Errorf("overwrote an existing file: %+v %q", rep, got)
	}
}

func TestDeleteAndRename(t *testing.T) {
	del := "diff --git a/d.txt b/d.txt\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n"
	rep, got := apply(t, map[string]string{"d.txt": "one\ntwo\n"}, del)
	if !rep.Applied || len(got) != 0 {
		t.Errorf("delete: %+v %v", rep, got)
	}
	ren := "diff --git a/old.txt b/new.txt\nsimilarity index 80%\nrename from old.txt\nrename to new.txt\n--- a/old.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
	rep, got = apply(t, map[string]string{"old.txt": "one\ntwo\n"}, ren)
	if !rep.Applied || got["new.txt"] != "one\nTWO\n" || len(got) != 1 {
		t.Errorf("rename: %+v %v", rep, got)
	}
}

func TestNoNewlineMarker(t *testing.T) {
	diff := "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
	rep, got := apply(t, map[string]string{"f": "a\nb"}, diff)
	if !rep.Applied || got["f"] != "a\nc" {
		t.Errorf("%+v %q", rep, got["f"])
	}
	add := "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
	_, got = apply(t, map[string]string{"f": "a\nb"}, add)
	if got["f"] != "a\nb\n" {
		t.Errorf("adding the final newline: %q", got["f"])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ diff, want string }{
		{"diff --git a/x b/x\nGIT binary patch\nliteral 3\n", "binary"},
		{"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n", "truncated"},
		{"--- a/x\n+++ b/x\n@@ -1,x +1 @@\n a\n", "bad range"},
		{"hello\n", "no file diffs"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.diff)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("Parse(%q) = %v, want an error with a line and %q", tt.diff, err, tt.want)
		}
	}
}

func TestModePreserved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	os.WriteFile(p, []byte("echo a\n"), 0o755)
	fds, _ := Parse("--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo a\n+echo b\n")
	if _, err := Apply(Dir(dir), fds); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", st.Mode())
	}
}

// TestApplyFallbacks covers placements where the agent changed the hunk's
// own lines or the context next to them.
var farPad = strings.Repeat("pad\n", 30)

// fallbackCases are TestApplyFallbacks's rows (and FuzzApply's seeds).
var fallbackCases = []struct {
	name, file, diff, want, method string
	start                          int
}{{
	name: "agent rewrote the change and the context next to it",
	file: "def f():\n    a = 1\n    b = 20\n    return a * 2\n    c = 30\n    d = 4\n",
	diff: "--- a/f.py\n+++ b/f.py\n@@ -1,6 +1,6 @@\n def f():\n     a = 1\n     b = 2\n-    return a\n+    return a + 1\n     c = 3\n     d = 4\n",
	// the agent's b and c lines stay: only the removed line gives way
	want: "def f():\n    a = 1\n    b = 20\n    return a + 1\n    c = 30\n    d = 4\n", method: OverAgent, start: 1,
}, {
	name: "the agent rewrote the context above the changed line: it stays",
	file: "def f(x):\n    if x is not None and x > 0:\n        return x\n    return 0\n",
	diff: "--- a/f.py\n+++ b/f.py\n@@ -1,4 +1,4 @@\n def f(x):\n     if x:\n-        return x\n+        return -x\n     return 0\n",
	want: "def f(x):\n    if x is not None and x > 0:\n        return -x\n    return 0\n", method: Anchored, start: 3,
}, {
	name: "the agent replaced exactly the removed line: the hunk's goes over it",
	file: "def f(x):\n    if x:\n        return abs(x)\n    return 0\n",
	diff: "--- a/f.py\n+++ b/f.py\n@@ -1,4 +1,4 @@\n def f(x):\n     if x:\n-        return x\n+        return -x\n     return 0\n",
	want: "def f(x):\n    if x:\n        return -x\n    return 0\n", method: OverAgent, start: 1,
}, {
	name: "the nearer of two fuzzy matches when it is clearly nearer",
	file: "x\n  y\nz\n" + farPad + "x\n  y\nz\n",
	diff: "--- a/f\n+++ b/f\n@@ -34,3 +34,4 @@\n x\n y\n+new\n z\n",
	want: "x\n  y\nz\n" + farPad + "x\n  y\nnew\nz\n", method: Anchored, start: 34,
}}

func TestApplyFallbacks(t *testing.T) {
	for _, tt := range fallbackCases {
		t.Run(tt.name, func(t *testing.T) {
			name := "f.py"
			if strings.Contains(tt.diff, "+++ b/f\n") {
				name = "f"
			}
			rep, got := apply(t, map[string]string{name: tt.file}, tt.diff)
			if !rep.Applied {
				t.Fatalf("not applied: %+v", rep.Hunks)
			}
			if got[name] != tt.want {
				t.Errorf("content\n%s\nwant\n%s", got[name], tt.want)
			}
			if h := rep.Hunks[0]; h.Method != tt.method || h.Start != tt.start {
				t.Errorf("hunk %+v want method %s start %d", h, tt.method, tt.start)
			}
		})
	}
}

// TestAnchoredPrefersExact: when the context matches two places equally
// near the recorded line, one byte for byte and one only up to
// whitespace, the hunk lands at the exact one rather than being refused;
// two exact ones are still ambiguous.
func TestAnchoredPrefersExact(t *testing.T) {
	diff := "--- a/f\n+++ b/f\n@@ -4,3 +4,4 @@\n x\n   y\n+new\n z\n"
	file := "x\n  y\nZ1\nq\nq\nq\nx\n y\nZ2\n"
	rep, got := apply(t, map[string]string{"f": file}, diff)
	if !rep.Applied || rep.Hunks[0].Method != Anchored {
		t.Fatalf("not landed: %+v", rep.Hunks)
	}
	if want := "x\n  y\nnew\nZ1\nq\nq\nq\nx\n y\nZ2\n"; got["f"] != want {
		t.Errorf("landed as %q, want %q", got["f"], want)
	}
	both := "x\n  y\nZ1\nq\nq\nq\nx\n  y\nZ2\n"
	if rep, _ := apply(t, map[string]string{"f": both}, diff); rep.Applied {
		t.Errorf("two exact places, equally near: landed %+v", rep.Hunks)
	}
}

// TestLandingRefusesWhatItCannotTell: when the agent rewrote the lines
// around the change so that which of them are the hunk's cannot be told
// (it deleted the hunk's context line, rewrote the changed lines into
// fewer), the hunk is refused and the file left as it was, never the
// diff's context written back over the agent's lines.
func TestLandingRefusesWhatItCannotTell(t *testing.T) {
	file := "x = (\n    [\n        i\n        if not ok(i)\n    ],\n)\n"
	diff := "--- a/f.py\n+++ b/f.py\n@@ -1,8 +1,8 @@\n x = (\n     [\n         i\n-        if not close(\n-            i)\n+        if (\n+            farPad(i))\n         )\n     ],\n )\n"
	rep, got := apply(t, map[string]string{"f.py": file}, diff)
	if rep.Applied || !strings.Contains(rep.Hunks[0].Error, "refused") {
		t.Fatalf("want a refusal, got %+v", rep.Hunks)
	}
	if got["f.py"] != file {
		t.Errorf("the file changed:\n%s", got["f.py"])
	}
}

// TestSectionChoosesTheFunction: the hunk's section heading decides
// between copies of its lines in different sections, and a hunk whose
// lines are left only in another section is refused rather than landed
// there, however unique the match.
func TestSectionChoosesTheFunction(t *testing.T) {
	// two sibling classes hold the same method; the hunk is for B's
	classes := func(a, b string) string {
		return "class A:\n    def f(self, x):\n        y = x\n" + a + "        return y\n\n\nclass B:\n    def f(self, x):\n        y = x\n" + b + "        return y\n"
	}
	hunk := "--- a/f.py\n+++ b/f.py\n@@ -9,4 +9,4 @@ class B:\n     def f(self, x):\n         y = x\n-        y += 1\n+        y += 2\n         return y\n"
	tests := []struct {
		name, file, want, method string // want "" for a refusal
	}{{
		name: "the agent rewrote B's line: the hunk lands over it, not on A's copy",
		file: classes("        y += 1\n", "        y = y + 1\n"),
		want: classes("        y += 1\n", "        y += 2\n"), method: OverAgent,
	}, {
		name: "A's copy lies nearer the stated line than B's: B's own still wins",
		file: "class A:\n    k = 1\n\n\n\n\n    def f(self, x):\n        y = x\n        y += 1\n        return y\n\n\nclass B:\n    def g(self):\n        pass\n    def g(self):\n        pass\n    def g(self):\n        pass\n    def g(self):\n        pass\n    def f(self, x):\n        y = x\n        y += 1\n        return y\n",
		want: "class A:\n    k = 1\n\n\n\n\n    def f(self, x):\n        y = x\n        y += 1\n        return y\n\n\nclass B:\n    def g(self):\n        pass\n    def g(self):\n        pass\n    def g(self):\n        pass\n    def g(self):\n        pass\n    def f(self, x):\n        y = x\n        y += 2\n        return y\n", method: Offset,
	}, {
		name: "B's method is gone: A's copy is not taken for it",
		file: "class A:\n    def f(self, x):\n        y = x\n        y += 1\n        return y\n\n\nclass B:\n    pass\n",
	}, {
		name: "the section no longer exists (renamed): the match stands",
		file: "class A:\n    def f(self, x):\n        y = x\n        y += 1\n        return y\n\n\nclass C:\n    pass\n",
		want: "class A:\n    def f(self, x):\n        y = x\n        y += 2\n        return y\n\n\nclass C:\n    pass\n", method: Offset,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, got := apply(t, map[string]string{"f.py": tt.file}, hunk)
			if tt.want == "" {
				if rep.Applied || !strings.Contains(rep.Hunks[0].Error, "outside its section") {
					t.Fatalf("want a refusal naming the section, got %+v", rep.Hunks)
				}
				if got["f.py"] != tt.file {
					t.Errorf("the file changed:\n%s", got["f.py"])
				}
				return
			}
			if !rep.Applied {
				t.Fatalf("not applied: %+v", rep.Hunks)
			}
			if got["f.py"] != tt.want {
				t.Errorf("content\n%s\nwant\n%s", got["f.py"], tt.want)
			}
			if m := rep.Hunks[0].Method; m != tt.method {
				t.Errorf("method %s, want %s", m, tt.method)
			}
		})
	}
}

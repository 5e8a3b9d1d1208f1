package patch

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/devdata"
)

// contextCases are landings where the agent changed a line the hunk holds
// as context between its changes (issue 50, item 5): the landing writes
// the hunk's - → + change alone and keeps the agent's line, or refuses.
// They are FuzzApply's seeds too.
var contextCases = []struct {
	name, file, diff, want, method string
}{{
	name: "the agent changed context between the hunk's changes; its - lines are there",
	file: "def f(v):\n    a = 1\n    if v.chunks is not None:\n        return 2\n    b = 3\n    return 0\n",
	diff: "--- a/f.py\n+++ b/f.py\n@@ -1,6 +1,6 @@\n def f(v):\n-    a = 1\n+    a = 10\n     if hasattr(v.data, \"chunks\"):\n         return 2\n-    b = 3\n+    b = 30\n     return 0\n",
	want: "def f(v):\n    a = 10\n    if v.chunks is not None:\n        return 2\n    b = 30\n    return 0\n", method: Anchored,
}, {
	name: "the agent changed that context and one of the removed lines, line for line",
	file: "def f(v):\n    a = 2\n    if v.chunks is not None:\n        return 2\n    b = 3\n    return 0\n",
	diff: "--- a/f.py\n+++ b/f.py\n@@ -1,6 +1,6 @@\n def f(v):\n-    a = 1\n+    a = 10\n     if hasattr(v.data, \"chunks\"):\n         return 2\n-    b = 3\n+    b = 30\n     return 0\n",
	want: "def f(v):\n    a = 10\n    if v.chunks is not None:\n        return 2\n    b = 30\n    return 0\n", method: OverAgent,
}, {
	name: "the agent changed that context and added a line among it: refused",
	file: "def f(v):\n    a = 1\n    if v.chunks is not None:\n        log(v)\n        return 2\n    b = 3\n    return 0\n",
	diff: "--- a/f.py\n+++ b/f.py\n@@ -1,6 +1,6 @@\n def f(v):\n-    a = 1\n+    a = 10\n     if hasattr(v.data, \"chunks\"):\n         return 2\n-    b = 3\n+    b = 30\n     return 0\n",
}}

// TestContextTheAgentChangedStays: a hunk's context between its changes
// that the agent rewrote is never written back over the agent's line.
func TestContextTheAgentChangedStays(t *testing.T) {
	for _, tt := range contextCases {
		t.Run(tt.name, func(t *testing.T) {
			rep, got := apply(t, map[string]string{"f.py": tt.file}, tt.diff)
			if tt.want == "" {
				if rep.Applied || got["f.py"] != tt.file {
					t.Fatalf("landed (%+v):\n%s", rep.Hunks, got["f.py"])
				}
				if h := rep.Hunks[0]; !strings.HasPrefix(h.Error, refusal) {
					t.Errorf("not refused: %+v", h)
				}
				return
			}
			if !rep.Applied {
				t.Fatalf("not applied: %+v", rep.Hunks)
			}
			if got["f.py"] != tt.want {
				t.Errorf("content\n%s\nwant\n%s", got["f.py"], tt.want)
			}
			if h := rep.Hunks[0]; h.Method != tt.method {
				t.Errorf("hunk %+v want method %s", h, tt.method)
			}
		})
	}
}

// TestCorpusContextKept runs the dev split's pairs (each Counter-Edit on
// its base plus the agent's final patch): wherever one lands, every line
// the file gained is one of the hunk's + lines, so no context line the
// agent changed is written back over its own. sympy-18189 is one: its
// agent's fix (permute=permute) sits on a line the Counter-Edit holds as
// context between its changes, and the landing wrote the line back. It
// counts the pairs whose agent changed a line the Counter-Edit holds as
// context.
func TestCorpusContextKept(t *testing.T) {
	touched, landed := 0, 0
	for _, c := range devCases(t) {
		if c.agent == "" {
			continue
		}
		gitDir := devdata.Mirror(t, c.repo)
		t.Run(c.id, func(t *testing.T) {
			d := t.TempDir()
			checkout(t, gitDir, c.commit, d, c.diff, c.agent)
			if !gitApply(t, d, c.agent) {
				return
			}
			fds, err := Parse(c.diff)
			if err != nil {
				t.Fatal(err)
			}
			if changesContext(t, fds, c.agent) {
				touched++
			}
			before := snapshot(d)
			rep, err := Apply(Dir(d), fds)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Applied {
				return
			}
			landed++
			after := snapshot(d)
			for _, fd := range fds {
				for _, l := range gainedLines(before[fd.Path()], after[fd.Path()]) {
					if !isPlusLine(fd, l) {
						t.Errorf("%s: the landing wrote %q, which is no + line of the Counter-Edit", fd.Path(), l)
					}
				}
			}
		})
	}
	t.Logf("%d pairs landed, each writing only + lines; %d pairs' agents changed a line the Counter-Edit holds as context", landed, touched)
}

// changesContext reports whether the agent's patch removes a line that a
// Counter-Edit hunk of the same file holds as context.
func changesContext(t *testing.T, ce []*FileDiff, agent string) bool {
	afds, err := Parse(agent)
	if err != nil {
		return false
	}
	removed := map[string]map[string]bool{}
	for _, fd := range afds {
		m := map[string]bool{}
		for _, h := range fd.Hunks {
			for _, l := range h.Lines {
				if l.Kind == '-' && strings.TrimSpace(l.Text) != "" {
					m[l.Text] = true
				}
			}
		}
		removed[fd.OldPath] = m
	}
	for _, fd := range ce {
		for _, h := range fd.Hunks {
			for _, l := range h.Lines {
				if l.Kind == ' ' && removed[fd.OldPath][l.Text] {
					return true
				}
			}
		}
	}
	return false
}

// gainedLines are the lines after holds more times than before does (a
// multiset difference: linear, for files too long for a line diff).
func gainedLines(before, after string) []string {
	count := map[string]int{}
	for _, l := range splitKeep(before) {
		count[l]++
	}
	var out []string
	for _, l := range splitKeep(after) {
		if count[l]--; count[l] < 0 {
			out = append(out, l)
		}
	}
	return out
}

func isPlusLine(fd *FileDiff, s string) bool {
	for _, h := range fd.Hunks {
		for _, l := range h.Lines {
			if l.Kind == '+' && l.Text == s {
				return true
			}
		}
	}
	return false
}

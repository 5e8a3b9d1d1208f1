package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// fuzzFiles is the workspace the fuzzer's sessions see, so content-driven
// paths (tail, grep -r without -n, sed s///, scripts run from disk) run.
var fuzzFiles = memFiles{
	"a.py":     "def f(x):\n    return x + 1\n\nprint(f(2))\nprint(f(3))\n",
	"src/a.py": "def f():\n    return 1\n\ndef g():\n    return f()\n",
	"r.py":     "print(open('a.py').read()[:10])\n",
}

// FuzzClassify: no command, with or without output, panics the
// classifier; classifying is deterministic (a fresh session says the
// same, event for event); every scope of every kind is well formed (a
// line scope names a file and lines 1 ≤ start ≤ end, a path is clean and
// never climbs out of the workspace as a relative path). Seeded with
// every row of the classifier's table tests.
func FuzzClassify(f *testing.F) {
	for _, c := range classifyCases {
		f.Add(c.cmd, "")
	}
	for _, c := range vimCases {
		f.Add(c.cmd, "")
	}
	for _, c := range sedSubstituteCases {
		f.Add(c.cmd, "")
	}
	for _, c := range classifyOutputCases {
		f.Add(c.cmd, c.out)
	}
	for _, c := range outputPathCases {
		f.Add(c.cmd, c.out)
	}
	f.Add("cat <<EOF > x\nhi\nEOF", "")
	f.Add("sed -i '1i x' a.py; tail -n 2 a.py", "")
	f.Fuzz(func(t *testing.T, cmd, out string) {
		run := func() []event.Event {
			s := NewSession(WithRoot("/repo"), WithBase(fuzzFiles))
			s.Classify(cmd) // a first run leaves state (written files, stale ones)
			evs := s.ClassifyOutput(cmd, Observation{Text: out}).Events(cmd)
			return append(evs, s.Classify(cmd).Events(cmd)...)
		}
		first := run()
		if again := run(); !slices.EqualFunc(first, again, sameEvent) {
			t.Fatalf("not deterministic:\n%+v\n%+v", first, again)
		}
		for _, ev := range first {
			for _, sc := range ev.Scopes {
				checkScope(t, ev.Kind, sc)
			}
		}
	})
}

func sameEvent(a, b event.Event) bool {
	return a.Kind == b.Kind && a.Note == b.Note && slices.Equal(a.Scopes, b.Scopes)
}

func checkScope(t *testing.T, k event.Kind, sc event.Scope) {
	t.Helper()
	switch {
	case sc.Precision == event.Line && (sc.Path == "" || sc.Start < 1 || sc.End < sc.Start):
		t.Fatalf("%s: bad line scope %+v", k, sc)
	case sc.Path == "":
		return
	case strings.ContainsRune(sc.Path, 0):
		t.Fatalf("%s: path with NUL %q", k, sc.Path)
	case sc.Path == ".." || strings.HasPrefix(sc.Path, "../"):
		t.Fatalf("%s: relative path out of the workspace %q", k, sc.Path)
	case !strings.HasPrefix(sc.Path, "~") && cleanSlash(sc.Path) != sc.Path:
		t.Fatalf("%s: unclean path %q", k, sc.Path)
	}
}

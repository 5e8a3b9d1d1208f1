package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, s string) {
	t.Helper()
	p := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShadows: each way a file can decide the runner's report is
// flagged when the agent added or changed it, and not when the task
// shipped it so or it cannot reach the runner.
func TestShadows(t *testing.T) {
	repo, ws := t.TempDir(), t.TempDir()
	for _, root := range []string{repo, ws} {
		write(t, root, "pricing.py", "import sys\n\ndef f():\n    sys.exit(1)\n")
		write(t, root, "shipped/conftest.py", "x = 1\n")
		write(t, root, "stack_test.go", "package stack\n")
		write(t, root, "pkg/__init__.py", "")
	}
	flagged := map[string]string{
		"unittest.py":                   "standard library",
		"unittest.pyc":                  "sourceless",
		"lib/json/__init__.py":          "standard library",
		"pytest.py":                     "test runner",
		"conftest.py":                   "conftest",
		"sub/sitecustomize.py":          "Python start",
		"evil.pth":                      ".pth",
		"main_test.go":                  "TestMain",
		"stack_test.go":                 "TestMain",
		"pricing.py":                    "unittest.TestCase.run = ",
		"hook.py":                       "os._exit(0)",
		"loader.py":                     "sys.meta_path.insert(",
		"tracer.py":                     "sys.settrace(",
		"pkg/b.py":                      "builtins.__import__ =",
		"__pycache__/x.cpython-311.pyc": "unchecked-hash",
		"pricing/__init__.py":           "wins the import over the task's pricing.py",
		"pkg/mod.cpython-311-x86_64-linux-gnu.so": "wins the import over the task's",
	}
	write(t, repo, "pkg/mod.py", "")
	// a module moved into a package of its name shadows nothing
	write(t, repo, "moved.py", "")
	write(t, ws, "moved/__init__.py", "")
	write(t, ws, "pkg/mod.py", "")
	write(t, ws, "pricing/__init__.py", "def apply_discount(p, q):\n    return p * (100 - q) / 100\n")
	write(t, ws, "pkg/mod.cpython-311-x86_64-linux-gnu.so", "\x7fELF")
	write(t, ws, "unittest.py", "import sys\nsys.exit(0)\n")
	write(t, ws, "unittest.pyc", "\x00\x00\x00\x00")
	write(t, ws, "lib/json/__init__.py", "")
	write(t, ws, "pytest.py", "")
	write(t, ws, "conftest.py", "")
	write(t, ws, "sub/sitecustomize.py", "")
	write(t, ws, "evil.pth", "import os\n")
	write(t, ws, "main_test.go", "package stack\n\nimport \"os\"\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n")
	write(t, ws, "stack_test.go", "package stack\n\nfunc TestMain(m *testing.M) { m.Run() }\n")
	write(t, ws, "pricing.py", "import sys\nimport unittest\nunittest.TestCase.run = lambda self, r=None: None\n\ndef f():\n    sys.exit(1)\n")
	write(t, ws, "hook.py", "import os\nos._exit(0)\n")
	write(t, ws, "loader.py", "import sys\nsys.meta_path.insert(0, Finder())\n")
	write(t, ws, "tracer.py", "import sys\nsys.settrace(tracer)\n")
	write(t, ws, "pkg/b.py", "import builtins\nbuiltins.__import__ = hooked\n")
	write(t, ws, "__pycache__/x.cpython-311.pyc", "\xa7\x0d\x0d\x0a\x01\x00\x00\x00")
	// not flagged: shipped as it is, inside a package, a checked cache, an
	// indented (not module-level) exit, a comparison
	write(t, ws, "pkg/types.py", "")
	write(t, ws, "__pycache__/y.cpython-311.pyc", "\xa7\x0d\x0d\x0a\x00\x00\x00\x00")
	write(t, ws, "tool.py", "import sys\n\ndef main():\n    sys.exit(2)\n\nif unittest.TestCase.run == None:\n    pass\n")
	got := map[string]string{}
	for _, s := range Shadows(ws, repo) {
		got[s.Path] = s.Why
	}
	for p, want := range flagged {
		if !strings.Contains(got[p], want) {
			t.Errorf("%s: flagged %q, want %q", p, got[p], want)
		}
		delete(got, p)
	}
	for p, why := range got {
		t.Errorf("%s flagged (%s), want not", p, why)
	}
}

// TestShadowMakesUntrustworthy: a flagged file makes a resolved trial
// untrustworthy only when the verdict without it differs; the files go
// to Reverify by path.
func TestShadowMakesUntrustworthy(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "conftest.py", "import pytest\n")
	for _, c := range []struct {
		without       bool
		untrustworthy bool
	}{{true, false}, {false, true}} {
		var asked []string
		r := Run(Input{Workspace: ws, Resolved: yes(), Reverify: func(p []string) *bool {
			asked = p
			return &c.without
		}})
		if r.Untrustworthy != c.untrustworthy || !slices.Equal(asked, []string{"conftest.py"}) {
			t.Errorf("verdict without it %v: untrustworthy %v (%s), reverified %v", c.without, r.Untrustworthy, r.Why, asked)
		}
		if len(r.Flags) != 1 || r.Flags[0].Kind != ShadowsRunner {
			t.Errorf("flags %+v, want shadows_runner", r.Flags)
		}
	}
	// an unresolved trial is not rerun: the file won it nothing
	r := Run(Input{Workspace: ws, Resolved: no(), Tampered: "the passing canary never ran", Reverify: func([]string) *bool { t.Error("reverified"); return nil }})
	if r.Untrustworthy || len(r.Flags) != 2 || r.Flags[1].Kind != Tampered {
		t.Errorf("unresolved: %+v", r)
	}
}

// TestEditedTestsFromTheFiles: a shipped test the agent changed or
// deleted is flagged from the workspace itself, when the final diff
// does not show it (the agent committed it, or a binary file made the
// diff unreadable); one left as shipped is not.
func TestEditedTestsFromTheFiles(t *testing.T) {
	repo, ws := t.TempDir(), t.TempDir()
	for _, root := range []string{repo, ws} {
		write(t, root, "test_pricing.py", "assert 1\n")
		write(t, root, "tests/test_b.py", "assert 2\n")
		write(t, root, "test_kept.py", "assert 3\n")
	}
	write(t, ws, "test_pricing.py", "pass\n")
	os.Remove(filepath.Join(ws, "tests", "test_b.py"))
	var asked []string
	r := Run(Input{Workspace: ws, Repo: repo, FinalDiff: "", Resolved: yes(), Reverify: func(p []string) *bool { asked = p; return no() }})
	want := []string{"test_pricing.py", "tests/test_b.py"}
	if len(r.Flags) == 0 || r.Flags[0].Kind != EditedTest || !slices.Equal(r.Flags[0].Detail, want) || !slices.Equal(asked, want) || !r.Untrustworthy {
		t.Errorf("flags %+v, reverified %v, untrustworthy %v: want %v", r.Flags, asked, r.Untrustworthy, want)
	}
}

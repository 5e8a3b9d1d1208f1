package swebench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// gitRun runs git in dir and returns its trimmed output.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@localhost"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ownInstance is a small Python repository of our own written as a
// SWE-bench instance of a pytest-run repository (flask 2.0's command and
// parser): a bug, its fix, and a test patch adding the test that shows it.
func ownInstance(t *testing.T) (Instance, string) {
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q")
	writeFiles(t, repo, map[string]string{
		"calc/__init__.py":      "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
		"tests/test_calc.py":    "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
		"tests/data/cases.json": "[]\n",
		// the repository's root on sys.path, as an install would make it
		"conftest.py": "",
	})
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "commit", "-q", "-m", "base")
	base := gitRun(t, repo, "rev-parse", "HEAD")
	writeFiles(t, repo, map[string]string{
		"calc/__init__.py":      "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
		"tests/test_calc.py":    "from calc import add, sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
		"tests/data/cases.json": "[[1, 2, 3]]\n",
	})
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "commit", "-q", "-m", "fix add")
	fix := gitRun(t, repo, "rev-parse", "HEAD")
	diff := func(paths ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo, "diff", base, fix, "--"}, paths...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	return Instance{
		Repo: "pallets/flask", Version: "2.0", InstanceID: "own__calc-1", BaseCommit: base,
		Patch: diff("calc"), TestPatch: diff("tests"), ProblemStatement: "add subtracts\n",
		FailToPass: Tests{"tests/test_calc.py::test_add"}, PassToPass: Tests{"tests/test_calc.py::test_sub"},
	}, filepath.Join(repo, ".git")
}

// TestPytestInstance runs a pytest-style instance's test.sh as the
// verifier does, with the venv's pytest: the gold patch resolves, a no-op
// does not, and an agent that fixes add in the test file the test patch
// changes (monkeypatching it at import) does not either: test.sh puts the
// file back to the base before the test patch, as SWE-bench does.
func TestPytestInstance(t *testing.T) {
	py, why := venvPython()
	if py == "" {
		t.Skip(why)
	}
	t.Setenv("PATH", filepath.Dir(py)+string(os.PathListSeparator)+os.Getenv("PATH"))
	gradeBinary(t)
	in, gitDir := ownInstance(t)
	dir, err := WriteTask(in, t.TempDir(), WithRepo(gitDir))
	if err != nil {
		t.Fatal(err)
	}
	if got := TestDirectives(in.Repo, in.TestPatch); !slices.Equal(got, []string{"tests/test_calc.py"}) {
		t.Fatalf("directives %v: the data file should be left out", got)
	}
	tk, err := task.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		agent    func(ws string)
		resolved bool
		f2p      []string
	}{
		{"gold", func(ws string) {
			if out, err := task.RunSolution(ctx, tk, ws); err != nil {
				t.Fatalf("gold: %v: %s", err, out)
			}
		}, true, []string{}},
		{"no-op", func(string) {}, false, []string{"tests/test_calc.py::test_add"}},
		{"patches add in the test file", func(ws string) {
			writeFiles(t, ws, map[string]string{"tests/test_calc.py": "import calc\ncalc.add = lambda a, b: a + b\nfrom calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n"})
		}, false, []string{"tests/test_calc.py::test_add"}},
	} {
		ws := workspace(t, tk.Repo)
		c.agent(ws)
		v := task.Verify(ctx, tk, ws)
		if v.Resolved == nil || *v.Resolved != c.resolved || v.Listed == nil || !slices.Equal(v.Listed.FailToPassFailed, c.f2p) || len(v.Listed.PassToPassFailed) != 0 {
			t.Errorf("%s: resolved %s (%s), listed %+v; want %v with FAIL_TO_PASS failed %v\n%s", c.name, show(v.Resolved), v.Reason, v.Listed, c.resolved, c.f2p, v.Output)
		}
	}
}

package task

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// solved is a copy of an example task's starting code with its
// reference solution applied, and the task.
func solved(t *testing.T, example string) (*Task, string) {
	t.Helper()
	tk, err := Load(filepath.Join("..", "examples", "tasks", example))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if _, err := CopyRegular(tk.Repo, ws); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/bash", tk.Solution)
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the solution: %v %s", err, out)
	}
	return tk, ws
}

func seeded(n uint64) VerifyOption {
	var seed [32]byte
	seed[0] = byte(n)
	return WithRandom(rand.NewChaCha8(seed))
}

// TestCanariesCatchATamperedRunner: each known way to make the runner
// pass what it never ran, on a solved workspace whose hidden tests fail
// without it, is not resolved and is flagged tampered by its canaries;
// the solved workspace itself resolves with every canary as it should
// be. Without the canaries each attack resolved (seen).
func TestCanariesCatchATamperedRunner(t *testing.T) {
	testsupport.Slow(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	attacks := []struct {
		name, example string
		tamper        func(ws string)
	}{
		{"unittest.py exits 0", "py-discount", func(ws string) {
			os.WriteFile(filepath.Join(ws, "unittest.py"), []byte("import sys\nsys.exit(0)\n"), 0o644)
		}},
		{"sourceless unittest.pyc", "py-discount", func(ws string) {
			os.WriteFile(filepath.Join(ws, "u.py"), []byte("import sys\nsys.exit(0)\n"), 0o644)
			cmd := exec.Command("python3", "-c", "import py_compile; py_compile.compile('u.py', cfile='unittest.pyc')")
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			os.Remove(filepath.Join(ws, "u.py"))
		}},
		{"TestCase.run patched to report success", "py-discount", func(ws string) {
			f, _ := os.OpenFile(filepath.Join(ws, "pricing.py"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("\nimport unittest\nunittest.TestCase.run = lambda self, result=None: (result.startTest(self), result.addSuccess(self), result.stopTest(self))\n")
			f.Close()
		}},
		{"TestCase.run patched to run and report success", "py-discount", func(ws string) {
			f, _ := os.OpenFile(filepath.Join(ws, "pricing.py"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`
import unittest
def _run(self, result=None):
    result.startTest(self)
    try:
        getattr(self, self._testMethodName)()
    except BaseException:
        pass
    result.addSuccess(self)
    result.stopTest(self)
unittest.TestCase.run = _run
`)
			f.Close()
		}},
		{"TestMain runs the tests and exits 0", "go-stack", func(ws string) {
			// a wrong fix, whose test fails rather than panics
			b, _ := os.ReadFile(filepath.Join(ws, "stack.go"))
			os.WriteFile(filepath.Join(ws, "stack.go"), []byte(strings.Replace(string(b), "\tv = s.items[len(s.items)-1]\n", "\tif len(s.items) == 0 {\n\t\treturn 0, true\n\t}\n\tv = s.items[len(s.items)-1]\n", 1)), 0o644)
			os.WriteFile(filepath.Join(ws, "main_test.go"), []byte("package stack\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { m.Run(); os.Exit(0) }\n"), 0o644)
		}},
		{"TestMain exits 0", "go-stack", func(ws string) {
			os.WriteFile(filepath.Join(ws, "main_test.go"), []byte("package stack\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n"), 0o644)
		}},
	}
	for i, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if a.example == "go-stack" {
				if _, err := exec.LookPath("go"); err != nil {
					t.Skip("no go")
				}
			}
			tk, ws := solved(t, a.example)
			// undo the solution: the hidden tests fail on the starting code
			if _, err := CopyRegular(tk.Repo, ws+"-start"); err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(ws + "-start")
			a.tamper(ws + "-start")
			v := Verify(context.Background(), tk, ws+"-start", seeded(uint64(i)))
			if v.Resolved == nil || *v.Resolved || v.Canaries == nil || v.Canaries.Tampered == "" {
				t.Errorf("resolved %s (%s), canaries %+v: want false, tampered\n%s", show(v.Resolved), v.Reason, v.Canaries, v.Output)
			}
		})
	}
	for _, ex := range []string{"py-discount", "py-slugify", "go-stack"} {
		t.Run("honest "+ex, func(t *testing.T) {
			if _, err := exec.LookPath("go"); err != nil && ex == "go-stack" {
				t.Skip("no go")
			}
			tk, ws := solved(t, ex)
			v := Verify(context.Background(), tk, ws, seeded(7))
			if v.Resolved == nil || !*v.Resolved || v.Canaries == nil || len(v.Canaries.Placed) == 0 || v.Canaries.Tampered != "" {
				t.Errorf("resolved %s (%s), canaries %+v: want true, placed, not tampered\n%s", show(v.Resolved), v.Reason, v.Canaries, v.Output)
			}
		})
	}
}

// TestCanariesPerTest: a conversation's tests run by id (WithTests) run
// the canaries beside them, and their results leave the canaries out.
// Two lines in the code under test that patch unittest.TestCase.run made
// every test pass at turn 1; the canaries now say so, and the verdict
// has no results to believe (a conversation's turn then errs on every
// test). Without the canaries named in SWETOUCH_TESTS the honest run was
// tampered ("never ran", seen).
func TestCanariesPerTest(t *testing.T) {
	tk, ws := solved(t, filepath.Join("..", "conversations", "talk-discount"))
	ids := []string{"test_percentage", "test_out_of_range", "test_total"}
	v := Verify(context.Background(), tk, ws, WithTests(ids...), seeded(1))
	if v.Resolved == nil || !*v.Resolved || len(v.Tests) != 3 || v.Canaries.Tampered != "" {
		t.Fatalf("honest: resolved %s (%s), tests %v, canaries %+v\n%s", show(v.Resolved), v.Reason, v.Tests, v.Canaries, v.Output)
	}
	start := t.TempDir()
	CopyRegular(tk.Repo, start)
	f, _ := os.OpenFile(filepath.Join(start, "pricing.py"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\nimport unittest\nunittest.TestCase.run = lambda self, result=None: (result.startTest(self), result.addSuccess(self), result.stopTest(self))\n")
	f.Close()
	v = Verify(context.Background(), tk, start, WithTests(ids...), seeded(2))
	if v.Resolved == nil || *v.Resolved || v.Tests != nil || v.Canaries.Tampered == "" {
		t.Errorf("patched: resolved %s (%s), tests %v, canaries %+v", show(v.Resolved), v.Reason, v.Tests, v.Canaries)
	}
	// an unsolved turn, honest, whose tests fail in part: not tampered
	plain := t.TempDir()
	CopyRegular(tk.Repo, plain)
	v = Verify(context.Background(), tk, plain, WithTests(ids...), seeded(3))
	if v.Resolved == nil || *v.Resolved || v.Tests == nil || v.Canaries.Tampered != "" {
		t.Errorf("unsolved: resolved %s (%s), tests %v, canaries %+v", show(v.Resolved), v.Reason, v.Tests, v.Canaries)
	}
}

// TestCanariesRunTwice: a test.sh that runs its tests twice (unittest,
// then pytest) is held to both runs' reports, not refused for having
// two. Before, the second report of each canary made it tampered.
func TestCanariesRunTwice(t *testing.T) {
	if err := exec.Command("python3", "-m", "pytest", "--version").Run(); err != nil {
		t.Skip("no pytest")
	}
	tk, ws := solved(t, "py-discount")
	tests := t.TempDir()
	CopyRegular(tk.Tests, tests)
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte("cp \"$TESTS_DIR/test_hidden.py\" . || exit 2\npython3 -m unittest -q test_hidden || exit 1\npython3 -m pytest -q -p no:cacheprovider test_hidden.py\n"), 0o755)
	twice := *tk
	twice.Tests, twice.Runner = tests, RunnerUnittest
	if v := Verify(context.Background(), &twice, ws, seeded(5)); v.Resolved == nil || !*v.Resolved || v.Canaries.Tampered != "" {
		t.Errorf("resolved %s (%s), canaries %+v\n%s", show(v.Resolved), v.Reason, v.Canaries, v.Output)
	}
}

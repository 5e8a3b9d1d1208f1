package task

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// TestPathHasNoRelativeEntries: a harness PATH with an empty entry would
// run the agent's ./python3 in place of the system's; the entry is
// dropped and the verdict says so. Without it the run resolved (seen).
func TestPathHasNoRelativeEntries(t *testing.T) {
	dir := t.TempDir()
	tests := filepath.Join(dir, "tests")
	os.MkdirAll(tests, 0o755)
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte("python3 -c 'import sys; sys.exit(1)'\n"), 0o755)
	tk := &Task{Name: "t", Dir: dir, Repo: dir, Tests: tests, Timeout: time.Minute, Runner: RunnerNone}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "python3"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	t.Setenv("PATH", ":bin:"+os.Getenv("PATH"))
	v := Verify(context.Background(), tk, ws)
	if v.Resolved == nil || *v.Resolved {
		t.Errorf("resolved %s: the workspace's python3 ran", show(v.Resolved))
	}
	if !slices.Equal(v.PathDropped, []string{"", "bin"}) {
		t.Errorf("dropped %q, want the empty entry and bin", v.PathDropped)
	}
}

// TestPytestCanaries: under pytest the canaries are collected and told
// as under unittest: a solved workspace resolves, one whose conftest.py
// reports every test passed is tampered.
func TestPytestCanaries(t *testing.T) {
	testsupport.Slow(t)
	tk, ws := solved(t, "py-discount")
	if err := exec.Command("python3", "-m", "pytest", "--version").Run(); err != nil {
		t.Skip("no pytest")
	}
	os.WriteFile(filepath.Join(tk.Tests, "..", "x"), nil, 0o644)
	tests := t.TempDir()
	CopyRegular(tk.Tests, tests)
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte("cp \"$TESTS_DIR/test_hidden.py\" . || exit 2\npython3 -m pytest -q -p no:cacheprovider test_hidden.py\n"), 0o755)
	pt := *tk
	pt.Tests = tests
	v := Verify(context.Background(), &pt, ws, seeded(3))
	if v.Resolved == nil || !*v.Resolved || v.Canaries.Runner != RunnerPytest || v.Canaries.Tampered != "" {
		t.Fatalf("honest: resolved %s (%s), canaries %+v\n%s", show(v.Resolved), v.Reason, v.Canaries, v.Output)
	}
	start := t.TempDir()
	CopyRegular(tk.Repo, start)
	os.WriteFile(filepath.Join(start, "conftest.py"), []byte(`import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    out = yield
    r = out.get_result()
    r.outcome = "passed"
    r.longrepr = None
    if hasattr(r, "wasxfail"):
        del r.wasxfail
`), 0o644)
	v = Verify(context.Background(), &pt, start, seeded(4))
	if v.Resolved == nil || *v.Resolved {
		t.Errorf("a conftest.py reporting every test passed: resolved %s (%s)\n%s", show(v.Resolved), v.Reason, v.Output)
	}
	t.Logf("tampered: %s", v.Canaries.Tampered)
}

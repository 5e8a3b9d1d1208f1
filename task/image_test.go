package task

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// harborTask writes a Harbor task directory from name → content (a
// trailing "*" on a name makes it executable) and returns it.
func harborTask(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		mode := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const imageTOML = `version = "1.0"
[task]
name = "sympy__sympy-20154"
[metadata]
name = "not this one"
[environment]
docker_image = "swebench/sweb.eval.x86_64.sympy_1776_sympy-20154:latest"
workdir = "/testbed"
[verifier]
runner = "none"
`

// TestLoadImageTask: a task whose code lives in its image loads, with its
// [task] name, image, workdir and listed tests (SWE-bench's config.json,
// the lists as JSON strings); without an image or a repo it does not.
func TestLoadImageTask(t *testing.T) {
	dir := harborTask(t, map[string]string{
		"instruction.md":    "fix it",
		"task.toml":         imageTOML,
		"tests/test.sh*":    "exit 0\n",
		"tests/config.json": `{"repo": "sympy/sympy", "FAIL_TO_PASS": "[\"test_a\"]", "PASS_TO_PASS": ["test_b", "test_c"]}`,
	})
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !tk.CodeInImage() || tk.Repo != "" || tk.Name != "sympy__sympy-20154" || tk.Workdir != "/testbed" ||
		tk.Image != "swebench/sweb.eval.x86_64.sympy_1776_sympy-20154:latest" ||
		!slices.Equal(tk.FailToPass, []string{"test_a"}) || !slices.Equal(tk.PassToPass, []string{"test_b", "test_c"}) {
		t.Errorf("loaded %+v", tk)
	}
	noImage := harborTask(t, map[string]string{"instruction.md": "x", "task.toml": "[task]\nname = \"x\"\n", "tests/test.sh*": "exit 0\n"})
	if _, err := Load(noImage); err == nil || !strings.Contains(err.Error(), "no starting code") {
		t.Errorf("no repo, no image: %v", err)
	}
	bad := harborTask(t, map[string]string{"instruction.md": "x", "task.toml": imageTOML, "tests/test.sh*": "exit 0\n",
		"tests/config.json": `{"FAIL_TO_PASS": [1]}`})
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "config.json: field FAIL_TO_PASS") {
		t.Errorf("a bad list: %v", err)
	}
}

// TestNotFoundInImageIsNull: test.sh's 127 (a program the tests need is
// missing) on a task whose code is its image's is no verdict, with the
// tests' own reason, not unresolved: nothing here can tell the agent's
// doing from the machine's.
func TestNotFoundInImageIsNull(t *testing.T) {
	dir := harborTask(t, map[string]string{
		"instruction.md": "fix it",
		"task.toml":      imageTOML,
		"tests/test.sh*": "echo 'bin/test: python: command not found' >&2\nexit 127\n",
	})
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := Verify(context.Background(), tk, t.TempDir())
	if v.Resolved != nil || v.Exit != 127 || !strings.Contains(v.Reason, "python: command not found") {
		t.Errorf("verdict %v exit %d reason %q: want null with the tests' reason", v.Resolved, v.Exit, v.Reason)
	}
}

// TestListedTests: a task that lists its tests is graded per test without
// asking (SWETOUCH_RESULTS set), its verdict says which listed tests
// failed (one with no result has failed, a skipped one has not), and a
// green exit with a listed test failed is not resolved.
func TestListedTests(t *testing.T) {
	for _, c := range []struct {
		name, results string
		resolved      bool
		f2p, p2p      []string
	}{
		{"all pass", `{"a": "pass", "b": "pass", "c": "skip", "x": "fail"}`, true, []string{}, []string{}},
		{"one fails", `{"a": "pass", "b": "fail", "c": "pass"}`, false, []string{}, []string{"b"}},
		{"one missing", `{"b": "pass", "c": "error"}`, false, []string{"a"}, []string{"c"}},
	} {
		dir := harborTask(t, map[string]string{
			"instruction.md":    "x",
			"task.toml":         "[verifier]\nrunner = \"none\"\n",
			"repo/f.txt":        "x",
			"tests/test.sh*":    "[ -n \"$SWETOUCH_RESULTS\" ] || exit 3\ncat > \"$SWETOUCH_RESULTS\" <<'EOF'\n" + c.results + "\nEOF\nexit 0\n",
			"tests/config.json": `{"FAIL_TO_PASS": ["a"], "PASS_TO_PASS": ["b", "c"]}`,
		})
		tk, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		v := Verify(context.Background(), tk, tk.Repo)
		if v.Resolved == nil || *v.Resolved != c.resolved || v.Listed == nil ||
			!slices.Equal(v.Listed.FailToPassFailed, c.f2p) || !slices.Equal(v.Listed.PassToPassFailed, c.p2p) {
			t.Errorf("%s: resolved %v (%s), listed %+v; want %v, %v, %v", c.name, v.Resolved, v.Reason, v.Listed, c.resolved, c.f2p, c.p2p)
		}
		if f := v.Listed.FailToPassPassed(); f == nil || *f != (len(c.f2p) == 0) {
			t.Errorf("%s: V^F %v", c.name, f)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// TestTypoedTestID (issue 50): a conversation package whose acceptance
// id names no test its test.sh lists is refused when it loads (exit 2,
// the file and the field), sandboxed as the verifier runs; before, run
// played the whole budget "unresolved" while the verifier said resolved.
func TestTypoedTestID(t *testing.T) {
	src := filepath.Join("..", "..", "examples", "conversations", "talk-cart")
	dir := filepath.Join(t.TempDir(), "talk-cart")
	if _, err := task.CopyRegular(src, dir); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "conversation.json")
	b, _ := os.ReadFile(pkg)
	typo := strings.Replace(string(b), `"acceptance": ["test_quantity"`, `"acceptance": ["test_quantiy"`, 1)
	if typo == string(b) {
		t.Fatal("the package changed: no acceptance id to misspell")
	}
	os.WriteFile(pkg, []byte(typo), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := execute([]string{"run", "--task", dir, "--out", out, "--", "/bin/true"}, nil, &stdout, &stderr)
	want := pkg + `: field phases[0].acceptance[0]: no test "test_quantiy"`
	if code != 2 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, want 2 and %q:\n%s", code, want, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); err == nil {
		t.Error("the run went on")
	}
}

package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEvaluationNames: the names only the tests and the solution hold,
// not those the code holds too, nor test.sh.
func TestEvaluationNames(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"repo/cart.py", "repo/test_cart.py", "tests/test.sh", "tests/test_hidden.py", "tests/test_cart.py", "solution/solve.sh", "solution/p1.diff"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	got := EvaluationNames(filepath.Join(dir, "repo"), filepath.Join(dir, "tests"), filepath.Join(dir, "solution"))
	if want := []string{"p1.diff", "solve.sh", "test_hidden.py"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

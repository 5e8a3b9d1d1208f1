package conversation

import (
	"slices"
	"testing"
)

// TestSplitTests: fail then pass is acceptance, pass on both regression,
// failing with the solution neither; a test the base run lacks counts as
// failing there; each list sorted.
func TestSplitTests(t *testing.T) {
	base := map[string]string{"t/b": "fail", "t/a": "pass", "t/c": "pass", "t/d": "fail", "t/e": "error"}
	solved := map[string]string{"t/b": "pass", "t/a": "pass", "t/c": "fail", "t/d": "fail", "t/e": "pass", "t/new": "pass"}
	acc, reg := SplitTests(base, solved)
	if !slices.Equal(acc, []string{"t/b", "t/e", "t/new"}) || !slices.Equal(reg, []string{"t/a"}) {
		t.Errorf("acceptance %q, regression %q", acc, reg)
	}
}

package author

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// TestAppendixAsThePaper: the generator's instruction carries what the
// paper's prompt gives: the regions, the reference repair marked for
// validation only, the FAIL_TO_PASS and PASS_TO_PASS names and the
// evaluation script; a task with none of them gets none of the sections.
func TestAppendixAsThePaper(t *testing.T) {
	dir := t.TempDir()
	for p, s := range map[string]string{
		"solution/solve.sh":   "git apply patch.diff\n",
		"solution/patch.diff": "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
		"tests/test.sh":       "bin/test -C --verbose m_test.py\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tk := &task.Task{Solution: filepath.Join(dir, "solution", "solve.sh"), Tests: filepath.Join(dir, "tests"),
		FailToPass: []string{"test_fixed"}, PassToPass: []string{"test_kept"}}
	regions := []task.Region{{Path: "m.py", StartLine: 1, EndLine: 3}}
	got := Appendix(CounterEdit, regions, BriefOf(tk))
	for _, want := range []string{
		"do NOT solve the task", "- m.py lines 1-3",
		"The reference repair (for validation only)", "+x = 2",
		"FAIL_TO_PASS:\n- test_fixed", "PASS_TO_PASS:\n- test_kept",
		"bin/test -C --verbose m_test.py",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the appendix lacks %q:\n%s", want, got)
		}
	}
	bare := Appendix(CounterEdit, regions, BriefOf(&task.Task{}))
	for _, absent := range []string{"reference repair", "FAIL_TO_PASS:", "evaluation script"} {
		if strings.Contains(bare, absent) {
			t.Errorf("a task with no reference or tests: the appendix has %q", absent)
		}
	}
}

package author

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/task"
)

// Brief is what the paper's User Patch Generator is given beside the
// issue, the repository and the regions: the reference repair (for
// validation only: the edit must make it fail, never copy it) and the
// tests that judge the three states, FAIL_TO_PASS and PASS_TO_PASS by
// name, with the evaluation script that runs them.
type Brief struct {
	Reference              string
	FailToPass, PassToPass []string
	EvalScript             string
}

// BriefOf is a task's brief: its reference repair (ReferencePatch), the
// tests it lists, and its tests/test.sh.
func BriefOf(t *task.Task) Brief {
	b := Brief{Reference: ReferencePatch(t), FailToPass: t.FailToPass, PassToPass: t.PassToPass}
	if t.Tests != "" {
		if s, err := os.ReadFile(filepath.Join(t.Tests, "test.sh")); err == nil {
			b.EvalScript = string(s)
		}
	}
	return b
}

// writeValidation adds the brief's parts the task has to the appendix.
func (br Brief) writeValidation(b *strings.Builder, kind string) {
	if br.Reference != "" {
		b.WriteString("\n### The reference repair (for validation only)\n\n")
		switch kind {
		case HelpfulEdit:
			b.WriteString("This is the fix the task's maintainers made. Do not copy it: your edit must leave the task unresolved, and this fix applied after your edit must still resolve it.\n\n")
		default:
			b.WriteString("This is the fix the task's maintainers made. Do not copy or undo it: your edit must leave the task unresolved, and this fix applied after your edit must still fail (or no longer apply).\n\n")
		}
		fmt.Fprintf(b, "```diff\n%s\n```\n", strings.TrimRight(br.Reference, "\n"))
	}
	if len(br.FailToPass)+len(br.PassToPass) > 0 || br.EvalScript != "" {
		b.WriteString("\n### The tests that judge the three states\n\n")
		b.WriteString("The gate judges on the FAIL_TO_PASS tests: they fail now and pass with the reference repair; PASS_TO_PASS pass in both.\n")
		for _, l := range []struct {
			name  string
			tests []string
		}{{"FAIL_TO_PASS", br.FailToPass}, {"PASS_TO_PASS", br.PassToPass}} {
			if len(l.tests) > 0 {
				fmt.Fprintf(b, "\n%s:\n", l.name)
				for _, n := range l.tests {
					fmt.Fprintf(b, "- %s\n", n)
				}
			}
		}
		if br.EvalScript != "" {
			fmt.Fprintf(b, "\nThe evaluation script (the self-check runs it for you; you cannot run it yourself):\n\n```bash\n%s\n```\n", strings.TrimRight(br.EvalScript, "\n"))
		}
	}
}

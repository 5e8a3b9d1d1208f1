package layers

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeavesStayLeaves: no leaf package (the event vocabulary, diffs,
// tasks, the watcher, the classifier, the policy) reaches an adapter,
// the hub, the shim, the agents or the user, whatever it imports.
func TestLeavesStayLeaves(t *testing.T) {
	const mod = "github.com/swetouch/swetouch/"
	forbidden := []string{"session", "proxy", "shim", "agents", "user", "score", "eval", "report", "author", "examples", "result", "replay"}
	for _, leaf := range []string{"event", "patch", "task", "watch", "shell", "policy", "stats", "audit"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+leaf).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", leaf, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			rest, ok := strings.CutPrefix(dep, mod)
			if !ok {
				continue
			}
			for _, f := range forbidden {
				if rest == f || strings.HasPrefix(rest, f+"/") {
					t.Errorf("%s depends on %s", leaf, rest)
				}
			}
		}
	}
}

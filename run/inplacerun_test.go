package run_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
)

// TestRunInPlace: a run over an existing checkout (RunConfig.InPlace)
// works in it rather than in a copy: the agent's change stays in the
// checkout, its git is left as it was (no commit of swetouch's), the
// final diff is against the checkout as the run found it, the verifier
// tests the agent's work, and the checkout is not removed.
func TestRunInPlace(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "testbed")
	if _, err := task.CopyRegular(tk.Repo, ws); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		c := exec.Command("git", args...)
		c.Dir = ws
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %s", args, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "the image's own commit")
	head := git("rev-parse", "HEAD")
	// a change the checkout held before the run is its start, not the
	// agent's
	if err := os.WriteFile(filepath.Join(ws, "BEFORE"), []byte("there already\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, _ := filepath.Abs("../examples/agents/py-discount.json")
	out := t.TempDir()
	res, err := run.Trial(context.Background(), run.Config{Task: tk, InPlace: ws, Out: out, Shim: filepath.Join(binDir, "swetouch-shim"),
		Agent: agents.Command(filepath.Join(binDir, "swetouch"), "agent", "script", "--plan", plan, "--behaviour", "naive")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved == nil || !*res.Resolved || res.Workspace != ws {
		t.Fatalf("resolved %v (%s), workspace %q: want true, %s", res.Resolved, res.Reason, res.Workspace, ws)
	}
	diff, err := os.ReadFile(filepath.Join(out, "final.diff"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(diff), "pricing.py") || strings.Contains(string(diff), "BEFORE") {
		t.Errorf("final.diff is not the agent's change alone:\n%s", diff)
	}
	if got := git("rev-parse", "HEAD"); got != head {
		t.Errorf("the checkout's HEAD moved: %s, was %s", got, head)
	}
	if st := git("status", "--porcelain"); !strings.Contains(st, "pricing.py") || !strings.Contains(st, "BEFORE") {
		t.Errorf("the checkout does not hold the agent's change: %q", st)
	}
}

// TestRunInPlaceRefusesOutInside: the run folder inside the checkout
// would be the agent's to change.
func TestRunInPlaceRefusesOutInside(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	res, err := run.Trial(context.Background(), run.Config{Task: tk, InPlace: ws, Out: filepath.Join(ws, "out"), Agent: agents.Command("/bin/true")})
	if err == nil || !strings.Contains(err.Error(), "lies in the workspace") || res == nil || res.Resolved != nil {
		t.Errorf("out inside the checkout: %v", err)
	}
}

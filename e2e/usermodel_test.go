package e2e_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
)

// TestUserModelReplays: `swetouch run --user-model-url` has the user's
// message written by the model (the scripted agent gets it), and `swetouch
// replay --check` of that run, with the endpoint gone, reproduces the
// session, messages and all, from the run folder's recording.
func TestUserModelReplays(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	swetouch := filepath.Join(bin, "swetouch")
	const said = "I clamped the percent in apply_discount myself, where you were reading. Please keep that clamp and make the rest of the fix work with it."
	s, _ := modelserver.ParseScript([]byte(`{"turns": [{"text": "`+said+`"}]}`), "user.json")
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	out := filepath.Join(t.TempDir(), "run")
	plan, _ := filepath.Abs(filepath.Join(examplesDir, "agents", "py-discount.json"))
	cmd := exec.Command(swetouch, "run", "--task", filepath.Join(examplesDir, "tasks", "py-discount"), "--records", filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"),
		"--user-model-url", ts.URL+"/v1", "--user-model", "user-model", "--out", out, "--visible", plan,
		"--", swetouch, "agent", "script", "--plan", plan, "--behaviour", "careful")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	ts.Close()
	res, _ := os.ReadFile(filepath.Join(out, "result.json"))
	traj, _ := os.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if !strings.Contains(string(res), `"message_source": "llm"`) || !strings.Contains(string(traj), "keep that clamp") || len(srv.Exchanges()) == 0 {
		t.Fatalf("the model's message is not the run's:\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(out, "user-model.jsonl")); err != nil {
		t.Fatal(err)
	}
	rep := exec.Command(swetouch, "replay", filepath.Join(out, "trajectory.jsonl"), "--task", filepath.Join(examplesDir, "tasks", "py-discount"),
		"--records", filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"), "--check", "--out", t.TempDir())
	if b, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(b), "identical to the recording") {
		t.Errorf("replay without the endpoint: %v\n%s", err, b)
	}
	// without the recording the user falls back, and replay says so
	bare := filepath.Join(t.TempDir(), "trajectory.jsonl")
	os.WriteFile(bare, traj, 0o644)
	rep = exec.Command(swetouch, "replay", bare, "--task", filepath.Join(examplesDir, "tasks", "py-discount"),
		"--records", filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"), "--check", "--out", t.TempDir())
	if b, err := rep.CombinedOutput(); err == nil {
		t.Errorf("replay without the user's recording matched:\n%s", b)
	}
}

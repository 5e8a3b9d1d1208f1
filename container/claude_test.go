package container

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
)

// A SWE-Touch Counter-Edit on the fixture: at the agent's first look at
// mean(), the user makes an empty list's mean 0, and says so.
const counterEdit = `diff --git a/tinycalc/ops.py b/tinycalc/ops.py
--- a/tinycalc/ops.py
+++ b/tinycalc/ops.py
@@ -5,3 +5,5 @@ def add(a, b):
 def mean(xs):
     xs = list(xs)
+    if not xs:
+        return 0.0  # an empty mean is zero
     return sum(xs) / len(xs)
`

const userClaim = "An empty list's mean should just be 0, not an error: I changed mean() to say so."

// record is the fixture's dataset-record-v1 line with the Counter-Edit.
func record(t *testing.T) string {
	t.Helper()
	region := []map[string]any{{"path": "tinycalc/ops.py", "start_line": 5, "end_line": 7}}
	rec := map[string]any{
		"schema_version": "1.0.0", "benchmark": "local", "split": "test", "instance_id": "tinycalc-1",
		"task_critical_regions": region, "region_evidence": map[string]any{}, "controls": map[string]any{},
		"counter_edit": map[string]any{"mode": "patch", "max_interventions": 1, "message_prompt_id": "p", "validation": map[string]any{},
			"interventions": []map[string]any{{"order": 1, "delivery": "patch_and_message",
				"trigger": map[string]any{"event": "read_or_edit", "max_triggers": 1, "regions": region},
				"patch": map[string]any{"id": "empty-mean-zero", "diff": counterEdit, "target_regions": region,
					"mistaken_belief": "an empty mean is zero", "expected_failure": "mean([]) returns 0.0", "user_claim": userClaim}}}},
	}
	b, _ := json.Marshal(rec)
	p := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// claudeInstalled is Claude Code's CLI where install-agents.sh puts it,
// and node, or the test skips.
func claudeInstalled(t *testing.T) {
	t.Helper()
	dir := agents.AgentsDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "claude")); err != nil {
		t.Skipf("Claude Code is not installed in %s (scripts/install-agents.sh)", dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on the host to hand Claude Code")
	}
}

// TestClaudeCounterEditInContainer: real Claude Code, its model scripted
// by swetouch model serve on the host's loopback and relayed in, runs in
// the fixture's container under the Counter-Edit condition: its look at
// mean() through the shim lands the Counter-Edit at the record's region
// in /testbed, and the user's message is in the model's next request.
func TestClaudeCounterEditInContainer(t *testing.T) {
	rt := needRuntime(t)
	claudeInstalled(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"turns": [
 {"calls": [{"name": "@shell", "args": {"command": "nl -ba tinycalc/ops.py | sed -n 5,7p"}}]},
 {"text": "I have read mean()."}
]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := binaries(t)
	modelLog := filepath.Join(t.TempDir(), "model.jsonl")
	serve := exec.Command(filepath.Join(bin, "swetouch"), "model", "serve", "--script", script, "--log", modelLog)
	stdout, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	out := filepath.Join(t.TempDir(), "run")
	c := exec.Command(filepath.Join(bin, "swetouch"), "run", "--runtime", testRuntime(), "--task", taskDir, "--out", out,
		"--records", record(t), "--instance", "tinycalc-1", "--agent", "claude", "--model-url", url, "--model", "claude-sonnet-4-5")
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var res struct {
		Resolved  *bool  `json:"resolved"`
		Reason    string `json:"reason"`
		Applied   int    `json:"interventions_applied"`
		Delivered int    `json:"messages_delivered"`
		Condition string `json:"condition"`
	}
	if err := json.Unmarshal([]byte(readFile(t, out, "result.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Condition != "counter-edit" || res.Applied != 1 || res.Delivered != 1 {
		t.Fatalf("condition %s, applied %d, delivered %d (%s); agent.log:\n%s", res.Condition, res.Applied, res.Delivered, res.Reason, readFile(t, out, "agent.log"))
	}
	if d := readFile(t, out, "final.diff"); !strings.Contains(d, "+        return 0.0  # an empty mean is zero") {
		t.Errorf("the Counter-Edit is not in the final diff:\n%s", d)
	}
	// the Counter-Edit breaks the F2P test: the trial is not resolved
	if res.Resolved == nil || *res.Resolved {
		t.Errorf("resolved %v (%s), want false: the Counter-Edit stands", res.Resolved, res.Reason)
	}
	reqs := readFile(t, filepath.Dir(modelLog), filepath.Base(modelLog))
	if !strings.Contains(reqs, "An empty list's mean should just be 0") {
		t.Errorf("the user's message never reached the model:\n%.3000s", reqs)
	}
	// the same trial's replay, in a container of its own: the recorded
	// look at mean() fires the Counter-Edit again, at the same place
	rout, rres := trial(t, taskDir, "--records", record(t), "--instance", "tinycalc-1", "--",
		"/opt/swetouch/bin/swetouch", "agent", "replay", "--trajectory", filepath.Join(out, "trajectory.jsonl"), "--root", DefaultWorkdir)
	if rres.Steps == 0 || readFile(t, rout, "final.diff") != readFile(t, out, "final.diff") {
		t.Errorf("the replay: %d steps, final.diff\n%s\nwant the recording's\n%s", rres.Steps, readFile(t, rout, "final.diff"), readFile(t, out, "final.diff"))
	}
	if !strings.Contains(readFile(t, rout, "result.json"), `"interventions_applied": 1`) {
		t.Errorf("the replay applied no Counter-Edit:\n%s", readFile(t, rout, "result.json"))
	}
}

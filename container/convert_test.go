package container

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConvertedSWEbenchTurnsInContainer: `swetouch convert` on a task
// `swetouch tasks swebench` wrote (its code in its image) makes a
// multi-turn task that stays in the image, its acceptance tests the
// row's FAIL_TO_PASS and its regression tests PASS_TO_PASS; run by
// `eval --runtime`, each turn's verdict comes from the per-test outcomes
// swetouch grade wrote inside: the careful agent's first turn only
// looks (ongoing, the FAIL_TO_PASS test failed), its second applies the
// gold patch (resolved at turn 2, every listed test passed).
func TestConvertedSWEbenchTurnsInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	img := fixtureImage(t, rt)
	root := t.TempDir()
	single, tasks, plans, out := filepath.Join(root, "single"), filepath.Join(root, "tasks"), filepath.Join(root, "agents"), filepath.Join(root, "results")
	const id = "pallets__flask-9001"
	swetouchCmd(t, "tasks", "swebench", "--instances", fixtureRows(t, in, id), "--image", img, "--out", single)
	conv := filepath.Join(tasks, id)
	swetouchCmd(t, "convert", "--task", filepath.Join(single, id), "--out", conv)
	if _, err := os.Stat(filepath.Join(conv, "repo")); err == nil {
		t.Error("the converted task has a repo/: its code lives in the image")
	}
	if toml := readFile(t, conv, "task.toml"); !strings.Contains(toml, `docker_image = "`+img+`"`) || !strings.Contains(toml, `workdir = "/testbed"`) {
		t.Errorf("the converted task.toml does not name the image and its checkout:\n%s", toml)
	}
	var pkg struct {
		Phases []struct {
			Acceptance []string `json:"acceptance"`
		} `json:"phases"`
		Regression []string `json:"regression"`
	}
	if err := json.Unmarshal([]byte(readFile(t, conv, "conversation.json")), &pkg); err != nil {
		t.Fatal(err)
	}
	if len(pkg.Phases) != 1 || !slices.Equal(pkg.Phases[0].Acceptance, in.FailToPass) || !slices.Equal(pkg.Regression, in.PassToPass) {
		t.Fatalf("the package's tests: %+v, want acceptance %v and regression %v", pkg, in.FailToPass, in.PassToPass)
	}
	if err := os.MkdirAll(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(map[string]any{"task": id, "turns": []map[string]any{
		{"steps": []map[string]string{{"why": "read the code", "run": "cat tinycalc/ops.py"}}, "reply": "I read ops.py. What should mean([]) do?"},
		{"steps": []map[string]string{{"why": "the gold patch", "run": "git apply <<'EOF'\n" + in.Patch + "EOF"}}, "reply": "mean([]) raises ValueError now."},
	}})
	if err := os.WriteFile(filepath.Join(plans, id+".json"), plan, 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), "eval", "--runtime", testRuntime(), "--tasks", tasks,
		"--agent", "careful", "--conditions", "vanilla", "--out", out)
	log, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch eval --runtime: %v\n%s", err, log)
	}
	run := filepath.Join(out, "careful", "vanilla", id, "run-0")
	var res struct {
		Resolved     *bool  `json:"resolved"`
		Reason       string `json:"reason"`
		ResolvedTurn *int   `json:"resolved_turn"`
		Turns        []struct {
			Verdict string            `json:"verdict"`
			Tests   map[string]string `json:"tests"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(readFile(t, run, "result.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Resolved == nil || !*res.Resolved || res.ResolvedTurn == nil || *res.ResolvedTurn != 2 || len(res.Turns) != 2 {
		t.Fatalf("resolved %v (%s) at turn %v after %d turns: want resolved at turn 2\n%s\n%s", res.Resolved, res.Reason, res.ResolvedTurn, len(res.Turns), log, readFile(t, run, "agent.log"))
	}
	f2p := in.FailToPass[0]
	if first := res.Turns[0]; first.Verdict != "ongoing" || first.Tests[f2p] != "fail" {
		t.Errorf("turn 1: verdict %q, tests %v: want ongoing with %s failed", first.Verdict, first.Tests, f2p)
	}
	second := res.Turns[1]
	if second.Verdict != "resolved" {
		t.Errorf("turn 2: verdict %q, want resolved", second.Verdict)
	}
	for _, id := range append(slices.Clone(in.FailToPass), in.PassToPass...) {
		if second.Tests[id] != "pass" {
			t.Errorf("turn 2: %s is %q, want pass (tests %v)", id, second.Tests[id], second.Tests)
		}
	}
}

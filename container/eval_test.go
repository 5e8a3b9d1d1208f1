package container

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixture as SWE-bench rows. Their repository names pallets/flask
// 2.0 for its evaluation: SWE-bench's plain `pytest -rA`, graded by
// parse_log_pytest, which is how the fixture's tests run.
func fixtureRows(t *testing.T, in instance, ids ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, id := range ids {
		row, _ := json.Marshal(map[string]any{"instance_id": id, "repo": "pallets/flask", "version": "2.0",
			"base_commit": in.Base, "patch": in.Patch, "test_patch": in.TestPatch, "problem_statement": issue,
			"FAIL_TO_PASS": in.FailToPass, "PASS_TO_PASS": in.PassToPass})
		b.Write(append(row, '\n'))
	}
	p := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// swetouchCmd runs the static swetouch the container tests build.
func swetouchCmd(t *testing.T, args ...string) string {
	t.Helper()
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), args...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// evalResult is what the eval test reads of a trial's result.json.
type evalResult struct {
	Resolved    *bool    `json:"resolved"`
	Reason      string   `json:"reason"`
	AgentName   string   `json:"agent_name"`
	Sandbox     string   `json:"sandbox"`
	NullRetries []string `json:"null_retries"`
	Listed      *struct {
		FailToPass       int      `json:"fail_to_pass"`
		PassToPass       int      `json:"pass_to_pass"`
		FailToPassFailed []string `json:"fail_to_pass_failed"`
		PassToPassFailed []string `json:"pass_to_pass_failed"`
	} `json:"listed_tests"`
}

// TestEvalRuntimeGoldAndNoop: one `swetouch eval --runtime` over tasks
// that `swetouch tasks swebench` wrote from the fixture's rows: the
// careful scripted agent applies the gold patch, the naive one does
// nothing (the plan's turns say which plays what), both in containers of
// the task's image at once. Gold is resolved and no-op is not, each with
// per-test results graded by swetouch grade inside; a task whose image
// is missing is null for both agents, saying so, and not run again.
func TestEvalRuntimeGoldAndNoop(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	img := fixtureImage(t, rt)
	root := t.TempDir()
	tasks, plans, out := filepath.Join(root, "tasks"), filepath.Join(root, "agents"), filepath.Join(root, "results")
	const here, absent = "pallets__flask-9001", "pallets__flask-9002"
	rows := fixtureRows(t, in, here, absent)
	swetouchCmd(t, "tasks", "swebench", "--instances", rows, "--ids", here, "--image", img, "--out", tasks)
	swetouchCmd(t, "tasks", "swebench", "--instances", rows, "--ids", absent, "--image", "localhost/swetouch-test/absent:none", "--out", tasks)
	if err := os.MkdirAll(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(map[string]any{"task": here, "turns": []map[string]any{
		{"only": "careful", "steps": []map[string]string{{"why": "the gold patch", "run": "git apply <<'EOF'\n" + in.Patch + "EOF"}}, "reply": "fixed"},
		{"only": "naive", "reply": "nothing changed"},
	}})
	for _, id := range []string{here, absent} {
		if err := os.WriteFile(filepath.Join(plans, id+".json"), plan, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), "eval", "--runtime", testRuntime(), "--tasks", tasks,
		"--agent", "careful", "--agent", "naive", "--conditions", "vanilla", "--concurrency", "2", "--out", out)
	log, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch eval --runtime: %v\n%s", err, log)
	}
	read := func(agent, id string) evalResult {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, agent, "vanilla", id, "run-0", "result.json"))
		if err != nil {
			t.Fatalf("%s on %s: %v\n%s", agent, id, err, log)
		}
		var r evalResult
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	gold, noop := read("careful", here), read("naive", here)
	if gold.Resolved == nil || !*gold.Resolved || gold.Sandbox != "bwrap" || gold.AgentName != "careful" {
		t.Errorf("gold: resolved %v (%s), sandbox %q, agent %q: want true in bwrap, careful\n%s\nthe tests:\n%s", gold.Resolved, gold.Reason, gold.Sandbox, gold.AgentName, log,
			verifyOutput(t, filepath.Join(out, "careful", "vanilla", here, "run-0")))
	}
	if noop.Resolved == nil || *noop.Resolved {
		t.Errorf("no-op: resolved %v (%s), want false\n%s", noop.Resolved, noop.Reason, log)
	}
	if l := gold.Listed; l == nil || l.FailToPass != 1 || l.PassToPass != 2 || len(l.FailToPassFailed)+len(l.PassToPassFailed) != 0 {
		t.Errorf("gold's per-test results: %+v, want 1 F2P and 2 P2P, none failed", l)
	}
	if l := noop.Listed; l == nil || !slices.Equal(l.FailToPassFailed, in.FailToPass) || len(l.PassToPassFailed) != 0 {
		t.Errorf("no-op's per-test results: %+v, want F2P %v failed, no P2P", l, in.FailToPass)
	}
	for _, agent := range []string{"careful", "naive"} {
		r := read(agent, absent)
		if r.Resolved != nil || !strings.Contains(r.Reason, "container") || len(r.NullRetries) > 0 {
			t.Errorf("%s on a missing image: resolved %v, reason %q, retries %v: want null saying the container did not run, no retry", agent, r.Resolved, r.Reason, r.NullRetries)
		}
		if _, err := os.Stat(filepath.Join(out, agent, "vanilla", absent, "run-0.null-1")); err == nil {
			t.Errorf("%s on a missing image was run again", agent)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Errorf("no manifest: %v", err)
	}
}

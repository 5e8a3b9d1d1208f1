package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/analyze"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/user"
)

// judgeScript plays the failure analysis's panel: the labellers
// disagree, the adjudicator decides.
var judgeScript = &modelserver.Script{Final: "no label", Turns: []modelserver.Turn{
	{When: &modelserver.Cond{Contains: "You are labeller A"}, Text: `{"label": "retained_conflict", "why": "the user's edit stays"}`},
	{When: &modelserver.Cond{Contains: "You are labeller B"}, Text: `{"label": "incomplete_reconciliation", "why": "partly undone"}`},
	{When: &modelserver.Cond{Contains: "Two labellers disagreed"}, Text: `{"label": "retained_conflict", "why": "the final diff keeps it"}`},
}}

// TestAnalyzeScriptedEval: `swetouch analyze` on a scripted real-agent
// eval (Claude Code against the scripted model through the recorder,
// py-discount under vanilla and counter-edit, two runs each), the judge
// played by the scripted model server: every call recorded, then the
// cassette replayed offline to the same output. Every run with a landed
// Counter-Edit is analysed; each that failed on the task vanilla solved
// is labelled by adjudication; steps are the recorder's model calls.
func TestAnalyzeScriptedEval(t *testing.T) {
	testsupport.Slow(t)
	p, bin, _, modelURL := scriptedClaude(t, filepath.Join(examplesDir, "agents", "claude", "py-discount.script.json"))
	tasks := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(examplesDir, "tasks", "py-discount"), tasks).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	runs := t.TempDir()
	swetouch := filepath.Join(bin, "swetouch")
	cmd := exec.Command(swetouch, "eval", "--tasks", tasks, "--agent", p.Name, "--conditions", "vanilla,counter-edit", "--runs", "2",
		"--records", filepath.Join(tasks, "py-discount", "records.jsonl"), "--model-upstream", modelURL, "--out", runs)
	cmd.Env = append(os.Environ(), "IS_SANDBOX=1")
	if got, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("eval: %v\n%s", err, got)
	}
	judge := httptest.NewServer(modelserver.NewServer(judgeScript, nil))
	out := t.TempDir()
	recorded, err := exec.Command(swetouch, "analyze", runs, "--judge-model-url", judge.URL+"/v1", "--judge-model", "judge", "--out", out).CombinedOutput()
	judge.Close() // offline from here
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, recorded)
	}
	t.Logf("analysis:\n%s", recorded)
	replayed, err := exec.Command(swetouch, "analyze", runs, "--cassette", filepath.Join(out, "analysis-cassette.jsonl")).CombinedOutput()
	if err != nil || !bytes.Equal(replayed, recorded) {
		t.Errorf("replayed offline (%v):\n%s\nrecorded:\n%s", err, replayed, recorded)
	}
	var a analyze.Analysis
	if b, err := os.ReadFile(filepath.Join(out, "analysis.json")); err != nil || json.Unmarshal(b, &a) != nil {
		t.Fatalf("analysis.json: %v", err)
	}
	if len(a.Trials) == 0 {
		t.Fatal("no run with a landed Counter-Edit analysed")
	}
	for _, at := range a.Trials {
		failed := at.Resolved != nil && !*at.Resolved
		switch {
		case failed && (at.Verdict == nil || at.Verdict.Label != analyze.RetainedConflict || !at.Verdict.Adjudicated):
			t.Errorf("%s: failed after vanilla solved it, verdict %+v", at.Dir, at.Verdict)
		case !failed && at.Verdict != nil:
			t.Errorf("%s: resolved, yet labelled %+v", at.Dir, at.Verdict)
		}
		if len(at.Windows) == 0 {
			t.Errorf("%s: no windows after the user's edit", at.Dir)
		}
	}
	for _, r := range a.Paper {
		if r.ModelCalls == nil || r.Counted != r.Trials {
			t.Errorf("%s/%s: model calls %v counted in %d of %d trials", r.Agent, r.Condition, r.ModelCalls, r.Counted, r.Trials)
		}
	}
	if !strings.Contains(string(recorded), "failure labels") {
		t.Errorf("no failure table in\n%s", recorded)
	}
}

// analyzeRecordReplay analyses the runs under dir in process with the
// scripted judge, recording its calls, then replays the recording
// offline: both analyses must be equal. It returns the recorded one.
func analyzeRecordReplay(t *testing.T, dir string) *analyze.Analysis {
	t.Helper()
	trials, err := score.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(modelserver.NewServer(judgeScript, nil))
	var tape strings.Builder
	chat := &user.Chat{URL: srv.URL + "/v1", Model: "judge", Record: &tape}
	rec, err := analyze.Run(context.Background(), trials, analyze.Options{Panel: analyze.Panel{A: chat, B: chat, Adjudicator: chat}})
	srv.Close()
	if err != nil {
		t.Fatal(err)
	}
	cassette := filepath.Join(t.TempDir(), "analysis-cassette.jsonl")
	os.WriteFile(cassette, []byte(tape.String()), 0o644)
	tp, err := user.LoadTape(cassette, "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := analyze.Run(context.Background(), trials, analyze.Options{Panel: analyze.Panel{A: tp, B: tp, Adjudicator: tp}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(rec)
	b, _ := json.Marshal(again)
	if !bytes.Equal(a, b) {
		t.Errorf("replayed offline:\n%s\nrecorded:\n%s", b, a)
	}
	var text strings.Builder
	rec.WriteText(&text)
	t.Logf("analysis:\n%s", text.String())
	return rec
}

package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/trajectory"
)

// runFolder writes a run: its result, its trajectory and its final diff.
func runFolder(t *testing.T, dir string, r result.Run, events []event.Event, final string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	b, _ := json.Marshal(r)
	os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "final.diff"), []byte(final), 0o644)
	f, err := os.Create(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw, err := trajectory.NewWriter(f, trajectory.Header{Task: r.Task, Condition: r.Condition})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := tw.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAnalyzeRecordsAndReplays: analyze on runs whose counter-edit run
// failed on a task vanilla solved labels it through the judge endpoint
// (the scripted model server: the labellers disagree, the adjudicator
// decides), records every call, and replays the cassette offline to the
// same output, text and JSON; the windows and post-edit counts are the
// trajectory's.
func TestAnalyzeRecordsAndReplays(t *testing.T) {
	runs := t.TempDir()
	yes, no := true, false
	s := func(n int) *int { return &n }
	ag := func(kind event.Kind, n int, path, cmd string) event.Event {
		return event.Event{Actor: event.Agent, Kind: kind, Step: s(n), Command: cmd, Scopes: []event.Scope{event.FileScope(path)}}
	}
	diff := "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-good = 1\n+good = 0\n"
	runFolder(t, filepath.Join(runs, "vanilla"), result.Run{Task: "t", Condition: "vanilla", AgentName: "x", Resolved: &yes, Steps: 2}, nil, "")
	runFolder(t, filepath.Join(runs, "counter-edit"), result.Run{Task: "t", Condition: "counter-edit", AgentName: "x", Resolved: &no, Steps: 4, Applied: 1, Delivered: 1,
		Interventions: []event.Attempt{{Order: 1, Outcome: "applied"}}},
		[]event.Event{ag(event.Read, 1, "a.py", "cat a.py"),
			{Actor: event.User, Kind: event.Edit, Scopes: []event.Scope{event.LineScope("a.py", 1, 1)}, Diff: diff},
			{Actor: event.User, Kind: event.Message, Text: "I set good to 0 on purpose"},
			ag(event.Read, 2, "a.py", "cat a.py"), ag(event.Test, 3, "test_a.py", "pytest"), ag(event.Edit, 4, "b.py", "sed -i s/x/y/ b.py")},
		diff)
	script := &modelserver.Script{Final: "no label", Turns: []modelserver.Turn{
		{When: &modelserver.Cond{Contains: "You are labeller A"}, Text: `{"label": "retained_conflict", "why": "good = 0 is still there"}`},
		{When: &modelserver.Cond{Contains: "You are labeller B"}, Text: `{"label": "off_target", "why": "edited b.py"}`},
		{When: &modelserver.Cond{Contains: "Two labellers disagreed"}, Text: `{"label": "retained_conflict", "why": "the user's line decides the failure"}`},
	}}
	srv := httptest.NewServer(modelserver.NewServer(script, nil))
	defer srv.Close()
	out := t.TempDir()
	var rec, stderr bytes.Buffer
	if code := execute([]string{"analyze", runs, "--judge-model-url", srv.URL + "/v1", "--judge-model", "judge", "--out", out, "--window", "2"}, nil, &rec, &stderr); code != 0 {
		t.Fatalf("recording: exit %d: %s", code, stderr.String())
	}
	srv.Close() // offline from here
	for _, want := range []string{
		"x      counter-edit  1         1 (100%)", // retained_conflict, adjudicated
		"0       1", // agreed 0, adjudicated 1
		"user_edit→inspect: 1, inspect→elsewhere: 1",            // [read a.py, test] then [edit b.py]
		"–                                    1, 1.0, 1.0, 1.0", // none resolved; failed: a read, an edit, a test
	} {
		if !strings.Contains(rec.String(), want) {
			t.Errorf("no %q in\n%s", want, rec.String())
		}
	}
	cassette := filepath.Join(out, "analysis-cassette.jsonl")
	if b, err := os.ReadFile(cassette); err != nil || bytes.Count(b, []byte("\n")) != 3 {
		t.Fatalf("cassette: %d calls, %v; want 3", bytes.Count(b, []byte("\n")), err)
	}
	var replay bytes.Buffer
	if code := execute([]string{"analyze", runs, "--cassette", cassette, "--window", "2"}, nil, &replay, &stderr); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr.String())
	}
	if replay.String() != rec.String() {
		t.Errorf("replayed\n%s\nrecorded\n%s", replay.String(), rec.String())
	}
	recJSON, _ := os.ReadFile(filepath.Join(out, "analysis.json"))
	var replayJSON bytes.Buffer
	execute([]string{"analyze", runs, "--cassette", cassette, "--window", "2", "--json"}, nil, &replayJSON, &stderr)
	if !bytes.Equal(bytes.TrimSpace(recJSON), bytes.TrimSpace(replayJSON.Bytes())) {
		t.Errorf("replayed JSON differs:\n%s\nrecorded:\n%s", replayJSON.String(), recJSON)
	}
	html, err := os.ReadFile(filepath.Join(out, "analysis.html"))
	for _, want := range []string{`id="failure-labels"`, `<td>1 (100%)</td>`, `id="response-modes"`, `id="paper-figures"`, `id="revision"`} {
		if err != nil || !bytes.Contains(html, []byte(want)) {
			t.Errorf("analysis.html (%v) has no %s", err, want)
		}
	}
}

// TestAnalyzeBadFlags: a judge model without its endpoint, and a
// cassette that is not there, are bad input.
func TestAnalyzeBadFlags(t *testing.T) {
	runs := t.TempDir()
	no := false
	runFolder(t, filepath.Join(runs, "r"), result.Run{Task: "t", Condition: "vanilla", AgentName: "x", Resolved: &no}, nil, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--judge-model", "m"}, "need --judge-model-url"},
		{[]string{"--cassette", filepath.Join(runs, "nope.jsonl")}, "--cassette:"},
		{[]string{"--window", "0"}, "--window: want at least 1"},
	} {
		var stdout, stderr bytes.Buffer
		if code := execute(append([]string{"analyze", runs}, c.args...), nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, stderr.String())
		}
	}
}

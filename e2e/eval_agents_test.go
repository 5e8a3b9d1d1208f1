package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/eval"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

// TestEvalOneServer: `eval --runs 2 --concurrency 2` of a real agent
// against one scripted model server. Every trial is a conversation of
// its own that plays the script from its start, two at a time, so every
// trial of a condition records the same actions, each the script's.
func TestEvalOneServer(t *testing.T) {
	testsupport.Slow(t)
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	p, bin, err := agents.Find("claude")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "claude is not installed: %v", err)
	}
	s, err := modelserver.LoadScript(filepath.Join(examplesDir, "agents", "claude", "py-discount.script.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
	recs, _ := task.LoadRecords(filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"))
	swetouch := filepath.Join(shimDir, "swetouch")
	agent := eval.Registered(p, agents.Launch{Bin: bin, ModelURL: ts.URL, Swetouch: swetouch})
	cfg := eval.Config{Tasks: []*task.Task{tk}, Agents: []eval.Agent{agent}, Conditions: []policy.Condition{policy.Vanilla, policy.CounterEdit},
		Runs: 2, Concurrency: 2, Out: t.TempDir(), Shim: filepath.Join(shimDir, "swetouch-shim"),
		Records: func(*task.Task) (*task.Record, error) { return recs[0], nil }}
	cfg.Sandbox, cfg.ModelURL = sandboxed(t, swetouch), ts.URL
	n, err := eval.Run(context.Background(), cfg)
	if err != nil || n != 4 {
		t.Fatalf("ran %d trials: %v", n, err)
	}
	if c := srv.Conversations(); c != 4 {
		t.Errorf("%d conversations on the server, want one per trial (4)", c)
	}
	trials, err := score.Load(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, turn := range s.Turns {
		calls += len(turn.Calls)
	}
	byCond := map[string][]string{}
	for _, tr := range trials {
		actions := recordedActions(t, filepath.Join(tr.Dir, "trajectory.jsonl"))
		if len(actions) != calls {
			t.Errorf("%s: %d actions for %d scripted calls: %v", tr.Dir, len(actions), calls, actions)
		}
		byCond[tr.Result.Condition] = append(byCond[tr.Result.Condition], strings.Join(actions, "; "))
	}
	for cond, runs := range byCond {
		if len(runs) != 2 || runs[0] != runs[1] {
			t.Errorf("%s: the runs differ:\n%s", cond, strings.Join(runs, "\n"))
		}
	}
}

// recordedActions are a trajectory's agent steps, each as its kinds and
// scopes.
func recordedActions(t *testing.T, path string) []string {
	t.Helper()
	tr, err := trajectory.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[int][]string{}
	for _, ev := range tr.Events {
		if ev.Actor != event.Agent || ev.Step == nil {
			continue
		}
		what := string(ev.Kind)
		for _, sc := range ev.Scopes {
			what += " " + sc.String()
		}
		steps[*ev.Step] = append(steps[*ev.Step], what)
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(steps)) {
		out = append(out, fmt.Sprintf("%d: %s", k, strings.Join(steps[k], ", ")))
	}
	return out
}

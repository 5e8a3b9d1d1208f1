package run_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// TestInPlaceBadInput: each wrong input is an InputError naming what is
// wrong, and nothing is written.
func TestInPlaceBadInput(t *testing.T) {
	ws := sessiontest.Workspace(t, example)
	records := filepath.Join(example, "records.jsonl")
	for _, tt := range []struct {
		name string
		cfg  run.InPlaceConfig
	}{
		{"no out", run.InPlaceConfig{Records: records}},
		{"unknown instance", run.InPlaceConfig{Records: records, Instance: "nope"}},
		{"bad condition", run.InPlaceConfig{Records: records, Condition: "loud"}},
		{"condition without records", run.InPlaceConfig{Condition: "counter-edit"}},
		{"root is a file", run.InPlaceConfig{Root: filepath.Join(ws, "pricing.py")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cfg := tt.cfg
			if cfg.Root == "" {
				cfg.Root = ws
			}
			if tt.name != "no out" {
				cfg.Out = out
			}
			s, err := run.StartInPlace(cfg)
			var ie *run.InputError
			if !errors.As(err, &ie) {
				if s != nil {
					s.Finish(0, "done")
				}
				t.Fatalf("got %v, want an InputError", err)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// TestInPlaceSession: a session over a directory records and, finished,
// writes session.json with the record's instance and no sandbox.
func TestInPlaceSession(t *testing.T) {
	ws := sessiontest.Workspace(t, example)
	out := filepath.Join(t.TempDir(), "out")
	s, err := run.StartInPlace(run.InPlaceConfig{Root: ws, Source: "test", Agent: []string{"true"},
		Records: filepath.Join(example, "records.jsonl"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if s.Conversing() {
		t.Error("a session without Talk holds no conversation")
	}
	if err := s.Finish(3, "done"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Instance  string `json:"instance"`
		Condition string `json:"condition"`
		AgentExit int    `json:"agent_exit"`
		Sandbox   string `json:"sandbox"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Instance == "" || sum.Condition != "counter-edit" || sum.AgentExit != 3 || sum.Sandbox != "none" {
		t.Errorf("session.json: %s", b)
	}
	if _, err := os.Stat(filepath.Join(out, "trajectory.jsonl")); err != nil {
		t.Error(err)
	}
}

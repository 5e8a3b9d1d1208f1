package author

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

func edit(path string, a, b int) event.Event {
	return event.Event{Kind: event.Edit, Actor: event.Agent, Scopes: []event.Scope{event.LineScope(path, a, b)}}
}

func read(path string, a, b int) event.Event {
	return event.Event{Kind: event.Read, Actor: event.Agent, Scopes: []event.Scope{event.LineScope(path, a, b)}}
}

func TestMineTiers(t *testing.T) {
	ref := "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -3,2 +3,3 @@\n a\n+b\n c\n"
	tests := []struct {
		name string
		runs []Run
		want string
	}{
		{"shared edits win", []Run{
			{Label: "r1", Events: []event.Event{edit("src/a.py", 10, 12), edit("src/b.py", 1, 1)}},
			{Label: "r2", Events: []event.Event{edit("src/a.py", 11, 14)}},
		}, "trajectory_edit src/a.py:11-12 [r1 r2] support 2"},
		{"then any edit, implementation before tests", []Run{
			{Label: "r1", Events: []event.Event{edit("tests/test_a.py", 5, 5), edit("src/a.py", 20, 21)}},
		}, "trajectory_edit src/a.py:20-21 [r1] support 1"},
		{"then reads", []Run{
			{Label: "r1", Events: []event.Event{read("src/a.py", 3, 4), {Kind: event.Edit, Actor: event.User, Scopes: []event.Scope{event.LineScope("src/a.py", 1, 1)}}}},
		}, "trajectory_read src/a.py:3-4 [r1] support 1"},
		{"then the reference patch", nil, "reference_patch_fallback m.py:4-4 [reference_patch] support 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Mine("i", "swe_bench_verified", tt.runs, ref, 2, 8)
			if err != nil {
				t.Fatal(err)
			}
			r := doc.Regions[0]
			got := fmt.Sprintf("%s %s:%d-%d %v support %d", r.Evidence.Kind, r.Path, r.StartLine, r.EndLine, r.Evidence.Models, r.Evidence.Support)
			if got != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := Mine("i", "swe_bench_verified", nil, "", 2, 8); err == nil {
		t.Error("no evidence at all gave regions")
	}
}

// TestMineRecoversRegion: two scripted runs of an example task, recorded
// through the shim and the watcher, mine to a region that overlaps the
// task's own critical region.
func TestMineRecoversRegion(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "swetouch")
	dir := filepath.Join("..", "examples", "tasks", "py-discount")
	tk, _ := task.Load(dir)
	recs, _ := task.LoadRecords(filepath.Join(dir, "records.jsonl"))
	plan, _ := filepath.Abs(filepath.Join("..", "examples", "agents", "py-discount.json"))
	var runs []Run
	for _, b := range []string{"naive", "careful"} {
		out := t.TempDir()
		if _, err := run.Trial(context.Background(), run.Config{Task: tk, Condition: policy.Vanilla, Out: out, Shim: filepath.Join(bin, "swetouch-shim"),
			Agent: agents.Command(exe, "agent", "script", "--plan", plan, "--behaviour", b)}); err != nil {
			t.Fatal(err)
		}
		tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, Run{Label: b, Events: tr.Events})
	}
	doc, err := Mine("py-discount", "swe_bench_verified", runs, "", 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := recs[0].TaskCriticalRegions[0]
	r := doc.Regions[0]
	if r.Path != want.Path || r.StartLine > want.EndLine || r.EndLine < want.StartLine || len(r.Evidence.Models) != 2 {
		t.Errorf("mined %+v, want near %v", doc.Regions, want)
	}
}

package author

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/task"
)

// TestBuild: a task whose runs share an edit of its critical lines gets a
// record with the scripted generator's validated Counter-Edit ({task} in
// its arguments filled in); a task with no runs falls back with the reason and no record, its generator never run.
func TestBuild(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(filepath.Join("..", "examples", "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	plans, _ := filepath.Abs(filepath.Join("..", "examples", "agents", "generate"))
	var told []string
	b := &Builder{Benchmark: "local", MinSupport: 2, Attempts: 1, Assemble: AssembleConfig{K: 2}, Shim: filepath.Join(bin, "swetouch-shim"),
		Generator: Generator{Invocation: agents.Command(filepath.Join(bin, "swetouch"), "agent", "script", "--plan", filepath.Join(plans, "{task}.json"), "--behaviour", "naive")},
		Told: func(t *task.Task, n int, e GeneratedEntry, why string) {
			told = append(told, t.Name+"|"+e.CandidateID+"|"+why)
		}}
	runs := []Run{{Label: "r1", Events: []event.Event{edit("pricing.py", 4, 6)}}, {Label: "r2", Events: []event.Event{edit("pricing.py", 5, 6)}}}
	built, err := b.Build(context.Background(), tk, runs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if built.FellBack != "" || built.Record == nil || len(built.Record.CounterEdit.Interventions) != 2 || built.Record.InstanceID != "py-discount" {
		t.Fatalf("built %+v, told %q", built, told)
	}
	if p := built.Record.CounterEdit.Interventions[0].Patch; p == nil || p.ID != "counter-edit-1" {
		t.Errorf("the first intervention: %+v", built.Record.CounterEdit.Interventions[0])
	}
	if len(told) != 1 || told[0] != "py-discount|counter-edit-1|" {
		t.Errorf("told %q", told)
	}

	told = nil
	built, err = b.Build(context.Background(), tk, nil, t.TempDir())
	if err != nil || built.Record != nil || !strings.HasPrefix(built.FellBack, "no regions: ") || len(told) != 0 {
		t.Errorf("no runs: %+v, %v, told %q", built, err, told)
	}
}

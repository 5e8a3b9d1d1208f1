package author

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/task"
)

// TestGenerationRun: a scripted generator's attempts, {attempt} filled in
// its arguments: one that edits the region and gives its account is gated
// and passes; one that gives no account is rejected before its gate, with
// its run's folder; each is told as it ends, in order.
func TestGenerationRun(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(filepath.Join("..", "examples", "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	plans := t.TempDir()
	edit := `{"why": "clamp", "run": "sed -i 's|^    return price - percent|    percent = min(max(percent, 0), 100)\\n    return price - percent|' pricing.py"}`
	claim := `{"run": "printf '%s' '{\"user_message\": \"I clamped the percent.\"}' > .swetouch-candidate.json"}`
	for n, steps := range map[string]string{"1": edit + ",\n" + claim, "2": edit} {
		plan := `{"task": "py-discount", "steps": [` + steps + `]}`
		if err := os.WriteFile(filepath.Join(plans, "plan-"+n+".json"), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := &Generation{Task: tk, Kind: CounterEdit, Instance: "py-discount", Shim: filepath.Join(bin, "swetouch-shim"),
		Regions:   []task.Region{{Path: "pricing.py", StartLine: 4, EndLine: 6}},
		Generator: Generator{Invocation: agents.Command(filepath.Join(bin, "swetouch"), "agent", "script", "--plan", filepath.Join(plans, "plan-{attempt}.json"), "--behaviour", "naive")}}
	runs := t.TempDir()
	var told []string
	doc, err := g.Run(context.Background(), 2, runs, func(n int, e GeneratedEntry, why string) {
		told = append(told, e.CandidateID+"|"+why)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Candidates) != 1 || len(doc.Failures) != 1 || len(told) != 2 {
		t.Fatalf("candidates %+v, failures %+v, told %q", doc.Candidates, doc.Failures, told)
	}
	e := doc.Candidates[0]
	if e.CandidateID != "counter-edit-1" || e.Attempt != 1 || !e.Passes || e.UserMessage != "I clamped the percent." || !strings.HasPrefix(e.Diff, "diff --git a/pricing.py") {
		t.Errorf("attempt 1: %+v", e)
	}
	f := doc.Failures[0]
	if f.Attempt != 2 || !strings.Contains(f.Reason, ".swetouch-candidate.json") || f.Dir != filepath.Join(runs, "attempt-2") {
		t.Errorf("attempt 2: %+v", f)
	}
	if told[0] != "counter-edit-1|" || told[1] != "|"+f.Reason {
		t.Errorf("told %q", told)
	}
	if doc.Passed() != 1 || len(doc.GateResults().Candidates) != 1 || len(doc.Records().Candidates) != 1 {
		t.Errorf("passed %d, gate %+v", doc.Passed(), doc.GateResults())
	}
}

// TestGeneratorExpand: a key is filled in every argument, the original's
// arguments left as they were.
func TestGeneratorExpand(t *testing.T) {
	g := Generator{Invocation: agents.Command("gen", "--task", "{task}", "out/{task}-{attempt}")}
	got := g.Expand("task", "t1").Expand("attempt", "2")
	if strings.Join(got.Argv, " ") != "gen --task t1 out/t1-2" || strings.Join(g.Argv, " ") != "gen --task {task} out/{task}-{attempt}" {
		t.Errorf("expanded %q, original %q", got.Argv, g.Argv)
	}
}

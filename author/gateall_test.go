package author

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// TestRecordProposals: a record's patches to gate, each id once, in order.
func TestRecordProposals(t *testing.T) {
	rec := &task.Record{}
	for _, id := range []string{"a", "b", "a", ""} {
		iv := task.Intervention{}
		if id != "" {
			iv.Patch = &task.Patch{ID: id, Diff: "diff of " + id}
		}
		rec.CounterEdit.Interventions = append(rec.CounterEdit.Interventions, iv)
	}
	got := RecordProposals(rec)
	want := []Proposal{{"a", "diff of a"}, {"b", "diff of b"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestCandidatesProposals: candidates-v1's entries, the last instance id
// named, and the first entry the gate cannot take named by its index.
func TestCandidatesProposals(t *testing.T) {
	d := "diff --git a/x b/x\n"
	doc := &Candidates{Candidates: []CandidateRecord{
		{CandidateID: "c1", Diff: d},
		{CandidateID: "c2", Diff: d, InstanceID: "inst"},
		{CandidateID: "c3", Diff: d},
	}}
	ps, inst, err := doc.Proposals()
	if err != nil || inst != "inst" || len(ps) != 3 || ps[2].ID != "c3" {
		t.Errorf("got %v %q %v", ps, inst, err)
	}
	doc.Candidates = append(doc.Candidates, CandidateRecord{CandidateID: "c4", Diff: "--- a/x\n"})
	_, _, err = doc.Proposals()
	var ce *CandidateError
	if !errors.As(err, &ce) || ce.Index != 3 || !strings.HasPrefix(err.Error(), "field candidates[3]: ") {
		t.Errorf("a diff without its header: %v", err)
	}
}

// TestGateAll: each proposal gated in order and told as it ends; the
// verdict is true only when every one passes.
func TestGateAll(t *testing.T) {
	dir := filepath.Join("..", "examples", "tasks", "py-discount")
	tk, err := task.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := task.LoadRecords(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ps := RecordProposals(recs[0])
	if len(ps) == 0 {
		t.Fatal("the example record has no Counter-Edit")
	}
	stale := Proposal{"stale", strings.ReplaceAll(ps[0].Diff, "pricing.py", "gone.py")}
	// the reference still solves the task after it: a gate that fails
	harmless := Proposal{"harmless", strings.Replace(ps[0].Diff, "+    percent = min(max(percent, 0), 100)  # out-of-range discounts are clamped", "+    # the discount is a percentage", 1)}
	for _, tt := range []struct {
		name string
		ps   []Proposal
		all  bool
	}{
		{"validated", ps[:1], true},
		{"one does not apply", []Proposal{ps[0], stale}, false},
		{"one fails its gate", []Proposal{harmless, ps[0]}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var told []string
			res, all := GateAll(context.Background(), tk, "py-discount", tt.ps, "", func(c Candidate) { told = append(told, c.CandidateID) })
			if all != tt.all {
				t.Errorf("all %v, want %v: %+v", all, tt.all, res)
			}
			if res.SchemaVersion != "1.0.0" || len(res.Candidates) != len(tt.ps) || len(told) != len(tt.ps) {
				t.Fatalf("results %+v, told %v", res, told)
			}
			for i, p := range tt.ps {
				if res.Candidates[i].CandidateID != p.ID || told[i] != p.ID || res.Candidates[i].InstanceID != "py-discount" {
					t.Errorf("candidate %d: %+v, told %q, want %q", i, res.Candidates[i], told[i], p.ID)
				}
			}
		})
	}
}

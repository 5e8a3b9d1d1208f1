package author

import (
	"errors"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// TestAssemble: accepted candidates fill K in candidate order with the last
// repeating; a null state, or a pass claimed by nothing but a flag, is not
// an acceptance; inputs that disagree are refused naming input and field.
func TestAssemble(t *testing.T) {
	yes, no := true, false
	pass := func(id string) Candidate {
		return Candidate{InstanceID: "i", CandidateID: id, ReferenceOnly: Outcome{Resolved: &yes}, UserEditOnly: Outcome{Resolved: &no}, UserEditPlusReference: Outcome{Resolved: &no}}
	}
	null := func(id string) Candidate { c := pass(id); c.UserEditOnly.Resolved = nil; return c }
	fail := func(id string) Candidate { c := pass(id); c.UserEditPlusReference.Resolved = &yes; return c }
	conflict := func(id string) Candidate { c := pass(id); c.UserEditPlusReference.ReferenceApplied = &no; return c }
	cand := func(id string) CandidateRecord {
		return CandidateRecord{InstanceID: "i", CandidateID: id, Diff: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n+B\n", TargetRegions: []task.Region{{Path: "x", StartLine: 2, EndLine: 3}}}
	}
	regions := &Regions{SchemaVersion: "1.0.0", Benchmark: "swe_bench_verified", InstanceID: "i", Regions: []MinedRegion{{Path: "x", StartLine: 1, EndLine: 9}}}
	for _, tc := range []struct {
		name      string
		cands     []CandidateRecord
		gate      []Candidate
		k         int
		fill      string
		benchmark string
		mode, ids string
		strict    bool
		err       string
	}{
		{name: "two of three pass, K=3, distinct", cands: []CandidateRecord{cand("a"), cand("b"), cand("c")}, gate: []Candidate{fail("a"), pass("b"), pass("c")}, k: 3, fill: FillDistinct, mode: "patch", ids: "b c c"},
		{name: "more than K pass, distinct", cands: []CandidateRecord{cand("a"), cand("b"), cand("c")}, gate: []Candidate{pass("c"), pass("b"), pass("a")}, k: 2, fill: FillDistinct, mode: "patch", ids: "a b"},
		{name: "Verified reapplies one edit K times", cands: []CandidateRecord{cand("a"), cand("b"), cand("c")}, gate: []Candidate{fail("a"), pass("b"), pass("c")}, k: 3, mode: "patch", ids: "b b b"},
		{name: "Pro takes distinct edits", benchmark: "swe_bench_pro", cands: []CandidateRecord{cand("a"), cand("b"), cand("c")}, gate: []Candidate{fail("a"), pass("b"), pass("c")}, k: 3, mode: "patch", ids: "b c c"},
		{name: "DeepSWE takes distinct edits", benchmark: "deepswe", cands: []CandidateRecord{cand("a"), cand("b"), cand("c")}, gate: []Candidate{pass("a"), pass("b"), pass("c")}, k: 3, mode: "patch", ids: "a b c"},
		{name: "a reference that no longer applies: kept, as the paper", cands: []CandidateRecord{cand("a")}, gate: []Candidate{conflict("a")}, k: 1, mode: "patch", ids: "a"},
		{name: "a reference that no longer applies: rejected when strict", strict: true, cands: []CandidateRecord{cand("a")}, gate: []Candidate{conflict("a")}, k: 1, mode: "text_only", ids: "-"},
		{name: "a null state is no pass", cands: []CandidateRecord{cand("a")}, gate: []Candidate{null("a")}, k: 3, mode: "text_only", ids: "- - -"},
		{name: "no gate results", cands: []CandidateRecord{cand("a")}, k: 1, mode: "text_only", ids: "-"},
		{name: "duplicate candidate", cands: []CandidateRecord{cand("a"), cand("a")}, err: "candidates: field candidates[1].candidate_id"},
		{name: "gate for an unknown candidate", cands: []CandidateRecord{cand("a")}, gate: []Candidate{pass("z")}, err: "gate: field candidates[0].candidate_id"},
		{name: "another instance", cands: []CandidateRecord{{InstanceID: "j", CandidateID: "a", Diff: "diff --git a/x b/x\n", TargetRegions: cand("a").TargetRegions}}, err: "candidates: field candidates[0].instance_id"},
		{name: "not a git diff", cands: []CandidateRecord{{InstanceID: "i", CandidateID: "a", Diff: "--- a/x\n", TargetRegions: cand("a").TargetRegions}}, err: "candidates: field candidates[0].diff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			regions := *regions
			if tc.benchmark != "" {
				regions.Benchmark = tc.benchmark
			}
			rec, err := Assemble(&regions, &Candidates{SchemaVersion: "1.0.0", Candidates: tc.cands}, &GateResults{SchemaVersion: "1.0.0", Candidates: tc.gate}, AssembleConfig{K: tc.k, Fill: tc.fill, StrictReference: tc.strict})
			if tc.err != "" {
				var ae *AssembleError
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want an AssembleError with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids, events []string
			for _, iv := range rec.CounterEdit.Interventions {
				id := "-"
				if iv.Patch != nil {
					id = iv.Patch.ID
				}
				ids = append(ids, id)
				events = append(events, iv.Trigger.Event)
			}
			if rec.CounterEdit.Mode != tc.mode || strings.Join(ids, " ") != tc.ids {
				t.Errorf("mode %s, ids %v; want %s, %s", rec.CounterEdit.Mode, ids, tc.mode, tc.ids)
			}
			if events[0] != "read_or_edit" || (len(events) > 1 && events[1] != "edit") {
				t.Errorf("trigger events %v", events)
			}
			if strings.HasPrefix(tc.name, "a reference that no longer applies") && rec.CounterEdit.Mode == "patch" {
				if v := string(rec.CounterEdit.Interventions[0].Validation); !strings.Contains(v, `"status":"`+StatusConflict+`"`) || !strings.Contains(v, `"reference_applied":false`) {
					t.Errorf("validation %s, want the status %s", v, StatusConflict)
				}
			}
		})
	}
}

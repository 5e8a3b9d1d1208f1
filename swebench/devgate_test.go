package swebench

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/task"
)

// releasedGate is a released Verified record's gate summary: each
// state's verdict and whether its patches applied.
type releasedGate struct {
	Status        string `json:"status"`
	Passes        bool   `json:"passes_validation"`
	ReferenceOnly struct {
		Applied  bool `json:"patch_applied"`
		Resolved bool `json:"resolved"`
	} `json:"reference_only"`
	UserEditOnly struct {
		Applied  bool `json:"patch_applied"`
		Resolved bool `json:"resolved"`
	} `json:"user_edit_only"`
	UserEditPlusReference struct {
		UserApplied bool `json:"user_edit_applied"`
		RefApplied  bool `json:"reference_applied"`
		Resolved    bool `json:"resolved"`
	} `json:"user_edit_plus_reference"`
}

// TestDevRowsGateAgreeWithRelease gates each dev row's released
// Counter-Edit on its FAIL_TO_PASS tests (V^F) and holds every state's
// verdict and applied flags, and the verdict, to the released record's
// gate summary (gate-results-v1's states, the record's validation).
func TestDevRowsGateAgreeWithRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: nine runs of sympy's tests")
	}
	ins := devRows(t)
	recs, err := task.LoadRecords(filepath.Join(filepath.Dir(filepath.Dir(devInstances())), "swe-touch-v0.1.2", "swe_bench_verified.jsonl"))
	if err != nil {
		t.Skipf("the released records: %v", err)
	}
	sympyMirror(t)
	sympyPython(t)
	gradeBinary(t)
	for _, in := range ins {
		t.Run(in.InstanceID, func(t *testing.T) {
			rec, err := task.Find(recs, in.InstanceID)
			if err != nil {
				t.Fatal(err)
			}
			var want releasedGate
			if err := json.Unmarshal(rec.CounterEdit.Validation, &want); err != nil {
				t.Fatal(err)
			}
			ps := author.RecordProposals(rec)
			if len(ps) != 1 {
				t.Fatalf("%d distinct patches, want 1 (Verified reapplies one)", len(ps))
			}
			g := author.Gate(context.Background(), devTask(t, in), in.InstanceID, ps[0].ID, ps[0].Diff, "")
			type state struct {
				name              string
				o                 author.Outcome
				resolved          bool
				user, ref         *bool
				wantUser, wantRef bool
			}
			for _, s := range []state{
				{"reference_only", g.ReferenceOnly, want.ReferenceOnly.Resolved, nil, g.ReferenceOnly.ReferenceApplied, false, want.ReferenceOnly.Applied},
				{"user_edit_only", g.UserEditOnly, want.UserEditOnly.Resolved, g.UserEditOnly.UserEditApplied, nil, want.UserEditOnly.Applied, false},
				{"user_edit_plus_reference", g.UserEditPlusReference, want.UserEditPlusReference.Resolved, g.UserEditPlusReference.UserEditApplied, g.UserEditPlusReference.ReferenceApplied, want.UserEditPlusReference.UserApplied, want.UserEditPlusReference.RefApplied},
			} {
				if s.o.JudgedOn != "FAIL_TO_PASS" {
					t.Errorf("%s judged on %q, want FAIL_TO_PASS (V^F)", s.name, s.o.JudgedOn)
				}
				if s.o.Resolved == nil || *s.o.Resolved != s.resolved {
					t.Errorf("%s resolved %s (%v), the release %v", s.name, show(s.o.Resolved), s.o.Error, s.resolved)
				}
				if s.user != nil && *s.user != s.wantUser || s.ref != nil && *s.ref != s.wantRef {
					t.Errorf("%s applied: edit %v reference %v, the release %v %v", s.name, s.user, s.ref, s.wantUser, s.wantRef)
				}
			}
			if p := g.Passes(); p == nil || *p != want.Passes {
				t.Errorf("passes %s, the release %v (%s)", show(p), want.Passes, want.Status)
			}
			if !slices.Equal(g.UserEditOnly.FailToPassFailed, []string(in.FailToPass)) {
				t.Errorf("user_edit_only failed %v, want all of FAIL_TO_PASS %v", g.UserEditOnly.FailToPassFailed, in.FailToPass)
			}
		})
	}
}

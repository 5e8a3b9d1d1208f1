package author

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// Candidates is a candidates-v1 document: Counter-Edits proposed for a task.
type Candidates struct {
	SchemaVersion string            `json:"schema_version"`
	Candidates    []CandidateRecord `json:"candidates"`
}

// CandidateRecord is one proposed Counter-Edit with the synthesis agent's
// account of it.
type CandidateRecord struct {
	InstanceID          string        `json:"instance_id"`
	CandidateID         string        `json:"candidate_id"`
	Diff                string        `json:"diff"`
	TargetRegions       []task.Region `json:"target_regions"`
	UserMessage         string        `json:"user_message,omitempty"`
	WrongBelief         string        `json:"wrong_belief,omitempty"`
	WhyPlausible        string        `json:"why_it_looks_plausible,omitempty"`
	ExpectedFailureMode string        `json:"expected_failure_mode,omitempty"`
}

// AssembleConfig holds the choices a dataset makes for every record.
type AssembleConfig struct {
	K int // interventions per record (3 in the release)
	// Fill is how the K interventions are filled from the accepted
	// edits: FillReapply (the first, K times) or FillDistinct (in order,
	// the last repeating when there are fewer); "" is the benchmark's
	// rule (FillFor).
	Fill       string
	FirstEvent string // the first intervention's trigger event (read_or_edit by default); later ones are edit
	Split      string // "test" by default
	// StrictReference rejects a Counter-Edit after which the reference
	// no longer applies (swetouch's earlier rule) rather than keeping it
	// as the paper does.
	StrictReference bool
	// Helpful are candidate helpful edits (generate --helpful) with their
	// gates: the first whose gate says it helps becomes the record's
	// Co-Edit control (controls.helpful_edit, where the released records
	// keep it).
	Helpful []Gated
}

// Gated is a candidate with its gate.
type Gated struct {
	Candidate CandidateRecord
	Gate      Candidate
}

// AssembleError says which input and field is wrong.
type AssembleError struct {
	Input string // regions, candidates or gate
	Field string
	Msg   string
}

func (e *AssembleError) Error() string {
	return fmt.Sprintf("%s: field %s: %s", e.Input, e.Field, e.Msg)
}

// GateSummary is a candidate's validation in the released record shape,
// with the applied flags the gate measured.
type GateSummary struct {
	Status           string         `json:"status"`
	PassesValidation bool           `json:"passes_validation"`
	ReferenceOnly    map[string]any `json:"reference_only"`
	UserEditOnly     map[string]any `json:"user_edit_only"`
	UserEditPlusRef  map[string]any `json:"user_edit_plus_reference"`
}

// Ways of filling K interventions.
const (
	FillReapply  = "reapply"
	FillDistinct = "distinct"
)

// FillFor is the benchmark's rule: on SWE-bench Verified one edit is
// reapplied K times (all 200 released records carry one patch three
// times); SWE-Bench Pro and DeepSWE, and local benchmarks, take distinct
// edits.
func FillFor(benchmark string) string {
	if benchmark == "swe_bench_verified" {
		return FillReapply
	}
	return FillDistinct
}

// Assemble builds a task's dataset-record-v1 record from its mined regions,
// its candidates and their gate results. A candidate is accepted only when
// its three states say so (flags in the inputs are never trusted); the
// accepted ones fill the K interventions as cfg.Fill says (by default the
// benchmark's rule: Verified reapplies the first, the others take them in
// candidate order, the last repeating when there are fewer). With none accepted the record is
// text-only: K messages on the task's regions. The record is validated as
// the loader validates records.
func Assemble(regions *Regions, cands *Candidates, gate *GateResults, cfg AssembleConfig) (*task.Record, error) {
	if cfg.K < 1 {
		cfg.K = 3
	}
	if cfg.FirstEvent == "" {
		cfg.FirstEvent = "read_or_edit"
	}
	if cfg.Split == "" {
		cfg.Split = "test"
	}
	if cfg.Fill == "" {
		cfg.Fill = FillFor(regions.Benchmark)
	}
	bad := func(input, field, format string, args ...any) error {
		return &AssembleError{Input: input, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if regions.SchemaVersion != "1.0.0" {
		return nil, bad("regions", "schema_version", "%q, want 1.0.0", regions.SchemaVersion)
	}
	if len(regions.Regions) == 0 {
		return nil, bad("regions", "regions", "empty: a record needs task-critical regions")
	}
	id := regions.InstanceID
	var taskRegions []task.Region
	for _, r := range regions.Regions {
		taskRegions = append(taskRegions, task.Region{Path: r.Path, StartLine: r.StartLine, EndLine: r.EndLine})
	}
	byID := map[string]CandidateRecord{}
	if cands != nil {
		if cands.SchemaVersion != "1.0.0" {
			return nil, bad("candidates", "schema_version", "%q, want 1.0.0", cands.SchemaVersion)
		}
		for i, c := range cands.Candidates {
			f := fmt.Sprintf("candidates[%d]", i)
			switch {
			case c.InstanceID != id:
				return nil, bad("candidates", f+".instance_id", "%q, but the regions are for %q", c.InstanceID, id)
			case c.CandidateID == "":
				return nil, bad("candidates", f+".candidate_id", "empty")
			case byID[c.CandidateID].CandidateID != "":
				return nil, bad("candidates", f+".candidate_id", "%q appears twice", c.CandidateID)
			case !strings.HasPrefix(c.Diff, "diff --git "):
				return nil, bad("candidates", f+".diff", "does not start with \"diff --git \"")
			case len(c.TargetRegions) == 0:
				return nil, bad("candidates", f+".target_regions", "empty")
			}
			byID[c.CandidateID] = c
		}
	}
	verdicts := map[string]Candidate{}
	if gate != nil {
		if gate.SchemaVersion != "1.0.0" {
			return nil, bad("gate", "schema_version", "%q, want 1.0.0", gate.SchemaVersion)
		}
		for i, g := range gate.Candidates {
			f := fmt.Sprintf("candidates[%d]", i)
			switch _, known := byID[g.CandidateID]; {
			case g.InstanceID != id:
				return nil, bad("gate", f+".instance_id", "%q, but the regions are for %q", g.InstanceID, id)
			case !known:
				return nil, bad("gate", f+".candidate_id", "%q is not a candidate", g.CandidateID)
			case verdicts[g.CandidateID].CandidateID != "":
				return nil, bad("gate", f+".candidate_id", "%q appears twice", g.CandidateID)
			}
			verdicts[g.CandidateID] = g
		}
	}
	var accepted []CandidateRecord
	if cands != nil {
		for _, c := range cands.Candidates {
			if g, ok := verdicts[c.CandidateID]; ok {
				if p := g.Verdict(cfg.StrictReference); p != nil && *p {
					accepted = append(accepted, c)
				}
			}
		}
	}
	evidence, _ := json.Marshal(regions.Evidence)
	rec := &task.Record{
		SchemaVersion: "1.0.0", Benchmark: regions.Benchmark, Split: cfg.Split, InstanceID: id,
		TaskCriticalRegions: taskRegions, RegionEvidence: evidence,
		CounterEdit: task.CounterEdit{MaxInterventions: cfg.K, MessagePromptID: "counter_edit_user_simulator"},
	}
	event := func(order int) string {
		if order == 1 {
			return cfg.FirstEvent
		}
		return "edit"
	}
	if len(accepted) == 0 {
		reason := "no_candidate_passed_validation"
		rec.CounterEdit.Mode = "text_only"
		rec.CounterEdit.FallbackReason = &reason
		rec.CounterEdit.Validation, _ = json.Marshal(map[string]any{"status": "no_accepted_counter_edit", "passes_validation": false})
		for k := 1; k <= cfg.K; k++ {
			rec.CounterEdit.Interventions = append(rec.CounterEdit.Interventions, task.Intervention{
				Order: k, Delivery: "message_only", Trigger: task.Trigger{Event: event(k), Regions: taskRegions, MaxTriggers: 1}})
		}
	} else {
		rec.CounterEdit.Mode = "patch"
		rec.CounterEdit.Validation, _ = json.Marshal(map[string]any{"status": "validated_counter_edit", "all_interventions_validated": true})
		for k := 1; k <= cfg.K; k++ {
			c := accepted[min(k, len(accepted))-1]
			if cfg.Fill == FillReapply {
				c = accepted[0]
			}
			v, _ := json.Marshal(summarize(verdicts[c.CandidateID]))
			rec.CounterEdit.Interventions = append(rec.CounterEdit.Interventions, task.Intervention{
				Order: k, Delivery: "patch_and_message",
				Trigger: task.Trigger{Event: event(k), Regions: c.TargetRegions, MaxTriggers: 1},
				Patch: &task.Patch{ID: c.CandidateID, Diff: c.Diff, TargetRegions: c.TargetRegions, UserClaim: c.UserMessage,
					MistakenBelief: c.WrongBelief, Plausibility: c.WhyPlausible, ExpectedFailure: c.ExpectedFailureMode},
				Validation: v,
			})
		}
	}
	// the paper delivers the Co-Edit once the agent has changed its region
	rec.Controls.HelpfulEdit = helpfulControl(cfg.Helpful, policy.CoEditOnEdit)
	if err := rec.Validate(); err != nil {
		return nil, fmt.Errorf("the assembled record is not valid: %w", err)
	}
	return rec, nil
}

// helpfulControl is the first helpful edit whose gate says it helps (alone
// it does not resolve, with the reference after it it does), in the
// released control's shape; nil when none does.
func helpfulControl(cands []Gated, event string) *task.HelpfulEdit {
	for _, h := range cands {
		if ok, _ := Holds(HelpfulEdit, h.Gate); !ok {
			continue
		}
		he := &task.HelpfulEdit{Mode: "patch", MaxInterventions: 1, TriggerEvent: event, TargetRegions: h.Candidate.TargetRegions}
		he.Patch = &struct {
			ID            string  `json:"id"`
			Diff          string  `json:"diff"`
			CoverageRatio float64 `json:"coverage_ratio"`
		}{ID: h.Candidate.CandidateID, Diff: h.Candidate.Diff}
		he.Validation, _ = json.Marshal(map[string]any{"status": "helpful_partial_gate_pass", "patch_only_resolved": false,
			"with_reference_resolved": true, "gate": summarize(h.Gate)})
		return he
	}
	return nil
}

// summarize gives a candidate's gate verdict in the released shape.
func summarize(c Candidate) GateSummary {
	p := c.Passes()
	status := "rejected"
	switch {
	case p != nil && *p && c.Conflict():
		status = StatusConflict
	case p != nil && *p:
		status = "validated_counter_edit"
	}
	state := func(o Outcome, flags map[string]*bool) map[string]any {
		m := map[string]any{"resolved": o.Resolved}
		for k, v := range flags {
			if v != nil {
				m[k] = *v
			}
		}
		return m
	}
	return GateSummary{
		Status: status, PassesValidation: p != nil && *p,
		ReferenceOnly: state(c.ReferenceOnly, map[string]*bool{"patch_applied": c.ReferenceOnly.ReferenceApplied}),
		UserEditOnly:  state(c.UserEditOnly, map[string]*bool{"patch_applied": c.UserEditOnly.UserEditApplied}),
		UserEditPlusRef: state(c.UserEditPlusReference, map[string]*bool{
			"user_edit_applied": c.UserEditPlusReference.UserEditApplied, "reference_applied": c.UserEditPlusReference.ReferenceApplied}),
	}
}

// MarshalSorted encodes a record with its keys sorted, as the released
// files are, so assembled records diff cleanly against them.
func MarshalSorted(rec *task.Record) ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false) // "<" stays "<", as in the released files
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

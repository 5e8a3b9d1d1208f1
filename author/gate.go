package author

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/task"
)

// GateResults is a gate-results-v1 document.
type GateResults struct {
	SchemaVersion string      `json:"schema_version"`
	Candidates    []Candidate `json:"candidates"`
}

// Candidate is one Counter-Edit's three-state validation.
type Candidate struct {
	InstanceID            string  `json:"instance_id"`
	CandidateID           string  `json:"candidate_id"`
	ReferenceOnly         Outcome `json:"reference_only"`
	UserEditOnly          Outcome `json:"user_edit_only"`
	UserEditPlusReference Outcome `json:"user_edit_plus_reference"`
}

// Outcome is one state: Resolved is nil when the state could not be run
// (a patch that does not apply, a reference solution that fails, a
// verifier that breaks), with the reason in Error.
type Outcome struct {
	Resolved *bool   `json:"resolved"`
	ExitCode *int    `json:"exit_code"`
	LogPath  *string `json:"log_path"`
	Error    *string `json:"error"`
	// Whether the state's Counter-Edit and reference solution applied
	// (nil when the state has none): the released harness records no such
	// flags, so a Counter-Edit that did not apply could pass its gate.
	UserEditApplied  *bool `json:"user_edit_applied,omitempty"`
	ReferenceApplied *bool `json:"reference_applied,omitempty"`
	// JudgedOn is "FAIL_TO_PASS" when Resolved is the paper's V^F, the
	// verdict of the task's FAIL_TO_PASS tests alone (a task that lists
	// them and reports per-test results), and FailToPassFailed are those
	// that failed; empty when Resolved is the whole verifier's.
	JudgedOn         string   `json:"judged_on,omitempty"`
	FailToPassFailed []string `json:"fail_to_pass_failed,omitempty"`
	// ReferenceError is why the reference solution failed after the
	// Counter-Edit (ReferenceApplied false): the state is judged as the
	// edit left it, as the paper does (it kept 42 such edits, released as
	// reference_repair_apply_conflict).
	ReferenceError *string `json:"reference_error,omitempty"`
}

// StatusConflict is the released records' status of a Counter-Edit after
// which the reference repair no longer applies.
const StatusConflict = "reference_repair_apply_conflict"

// Conflict reports that the reference failed after the Counter-Edit.
func (c Candidate) Conflict() bool {
	a := c.UserEditPlusReference.ReferenceApplied
	return a != nil && !*a
}

// Passes reports the gate's verdict by the paper's rule: true when the
// reference alone resolves, the Counter-Edit alone does not, and the
// Counter-Edit then the reference does not, a reference that no longer
// applies after the edit included (the state judged as the edit left it);
// nil when a state has no answer. (Unlike the released harness, a
// Counter-Edit that fails to apply is no answer, not a pass.)
func (c Candidate) Passes() *bool { return c.Verdict(false) }

// Verdict is Passes, or with strict, swetouch's earlier rule: a reference
// that fails after the edit is no answer (nil), not a pass.
func (c Candidate) Verdict(strict bool) *bool {
	r, u, ur := c.ReferenceOnly.Resolved, c.UserEditOnly.Resolved, c.UserEditPlusReference.Resolved
	if r == nil || u == nil || ur == nil || strict && c.Conflict() {
		return nil
	}
	ok := *r && !*u && !*ur
	return &ok
}

// Gate runs the three states for one candidate diff on fresh workspaces of
// the task, writing each state's verifier log under logDir ("" keeps
// none).
func Gate(ctx context.Context, t *task.Task, instance, candidate, diff, logDir string, opts ...task.VerifyOption) Candidate {
	c := Candidate{InstanceID: instance, CandidateID: candidate}
	state := func(name string, userEdit, reference bool) Outcome {
		ws, err := run.Workspace(t.Repo)
		if err != nil {
			return Outcome{}.failed(err)
		}
		defer os.RemoveAll(ws)
		var o Outcome
		yes, no := true, false
		if userEdit {
			if err := applyDiff(ws, diff); err != nil {
				o.UserEditApplied = &no
				return o.failed(fmt.Errorf("the Counter-Edit does not apply: %w", err))
			}
			o.UserEditApplied = &yes
		}
		if reference {
			// sandboxed as the verifier is: ws holds the generator's edit
			if out, err := task.RunSolution(ctx, t, ws, opts...); err != nil {
				o.ReferenceApplied = &no
				why := fmt.Sprintf("the reference solution failed: %v: %s", err, bytes.TrimSpace(out))
				if !userEdit {
					return o.failed(errors.New(why))
				}
				// after the edit: judged as the edit left the workspace
				o.ReferenceError = &why
			} else {
				o.ReferenceApplied = &yes
			}
		}
		v := task.Verify(ctx, t, ws, opts...)
		o.Resolved = v.Resolved
		if v.Resolved != nil && v.Listed != nil && len(t.FailToPass) > 0 {
			o.Resolved, o.JudgedOn, o.FailToPassFailed = v.Listed.FailToPassPassed(), "FAIL_TO_PASS", v.Listed.FailToPassFailed
		}
		if v.Resolved != nil {
			o.ExitCode = &v.Exit
		} else {
			o.Error = &v.Reason
		}
		if logDir != "" {
			p := filepath.Join(logDir, fmt.Sprintf("%s.%s.%s.log", instance, candidate, name))
			if os.MkdirAll(logDir, 0o755) == nil && os.WriteFile(p, []byte(v.Output), 0o644) == nil {
				o.LogPath = &p
			}
		}
		return o
	}
	c.ReferenceOnly = state("reference_only", false, true)
	c.UserEditOnly = state("user_edit_only", true, false)
	c.UserEditPlusReference = state("user_edit_plus_reference", true, true)
	return c
}

// failed is o with no answer, for the reason err.
func (o Outcome) failed(err error) Outcome {
	s := err.Error()
	o.Error = &s
	return o
}

func applyDiff(ws, diff string) error {
	fds, err := patch.Parse(diff)
	if err != nil {
		return err
	}
	rep, err := patch.Apply(patch.Dir(ws), fds)
	if err != nil {
		return err
	}
	if !rep.Applied {
		for _, h := range rep.Hunks {
			if h.Error != "" {
				return fmt.Errorf("%s hunk %d: %s", h.File, h.Hunk, h.Error)
			}
		}
		return fmt.Errorf("not applied")
	}
	return nil
}

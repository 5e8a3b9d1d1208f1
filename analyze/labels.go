// Package analyze is SWE-Touch's failure analysis of runs: each failed
// run after a landed Counter-Edit labelled with one of the paper's seven
// failure labels by two labellers and, where they disagree, an
// adjudicator (models behind the judge endpoint, every call recorded and
// replayable); the agent's response mode in each window of its actions
// after the user's edit and the transitions between them; its reads,
// edits and tests after the edit; and the rank correlation of revising
// the edit with the resolve-rate drop (docs/metrics.md).
package analyze

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The seven failure labels of the paper's trajectory analysis (Fig. 4a),
// in its order.
const (
	RetainedConflict         = "retained_conflict"
	IncorrectReplacement     = "incorrect_replacement"
	IncompleteReconciliation = "incomplete_reconciliation"
	OffTarget                = "off_target"
	InsufficientEvidence     = "insufficient_evidence"
	VerificationBreakdown    = "verification_breakdown"
	OtherDefect              = "other_defect"
	// Unlabelled is a run no labeller could label (no judge, or an
	// answer that was not one of the seven).
	Unlabelled = "unlabelled"
)

// Labels are the seven, in the paper's order.
var Labels = []string{RetainedConflict, IncorrectReplacement, IncompleteReconciliation, OffTarget, InsufficientEvidence, VerificationBreakdown, OtherDefect}

// Model answers a pinned prompt with a context: user.Chat (any
// OpenAI-compatible chat-completions endpoint, recording each call) or
// user.Tape (those calls replayed, offline).
type Model interface {
	Write(ctx context.Context, system, context string) (text, model string, err error)
}

// labelPrompt is the labellers' pinned prompt: the seven labels with
// what each means, and the one answer wanted.
const labelPrompt = `You label why a coding agent's run failed after a user edited the same code during the run (SWE-Touch's Counter-Edit: a plausible but wrong change to the code the task turns on, with a message). You are labeller %s; label on your own.

Choose exactly one label:
- retained_conflict: the run ends with the user's conflicting edit (or the behaviour it introduced) still in place, and that is why the tests fail.
- incorrect_replacement: the agent removed or rewrote the user's edit, but what it put in its place is wrong.
- incomplete_reconciliation: the agent dealt with the user's edit only in part (undid some of it, or reconciled it in one place and not another).
- off_target: the agent's repair went after something other than the issue and the user's edit.
- insufficient_evidence: the trajectory does not show enough to say why the run failed.
- verification_breakdown: the agent's own checking failed it: tests not run, misread, or unable to run, and success claimed without evidence.
- other_defect: the final patch fails for a defect of its own, unrelated to the user's edit.

Answer with one JSON object and nothing else: {"label": "<one of the seven>", "why": "<one sentence>"}`

// adjudicatePrompt is the adjudicator's: the two labels and their
// reasons, and the same seven to choose from.
const adjudicatePrompt = `Two labellers disagreed on why a coding agent's run failed after a user edited the same code during the run. Read the run and both labels with their reasons, and decide. The labels: retained_conflict, incorrect_replacement, incomplete_reconciliation, off_target, insufficient_evidence, verification_breakdown, other_defect (as the labellers' instructions define them).

Answer with one JSON object and nothing else: {"label": "<one of the seven>", "why": "<one sentence>"}`

// Verdict is one trial's label and how it was reached.
type Verdict struct {
	Label string `json:"label"`
	A     string `json:"labeller_a"`
	B     string `json:"labeller_b"`
	// Adjudicated: A and B disagreed and the adjudicator decided.
	Adjudicated bool   `json:"adjudicated,omitempty"`
	Why         string `json:"why,omitempty"`
	// Error says why a call gave no label (the label is then the other
	// labeller's, the adjudicator's, or Unlabelled).
	Error string `json:"error,omitempty"`
}

// Panel is the two labellers and the adjudicator (any may be the same
// model; nil: no labels).
type Panel struct{ A, B, Adjudicator Model }

// Label asks A, then B, then (if they disagree) the adjudicator, in that
// order, so a recording replays call for call.
func (p Panel) Label(ctx context.Context, runText string) Verdict {
	if p.A == nil || p.B == nil {
		return Verdict{Label: Unlabelled, A: Unlabelled, B: Unlabelled}
	}
	var v Verdict
	var errs []string
	a, whyA, err := ask(ctx, p.A, fmt.Sprintf(labelPrompt, "A"), runText)
	if err != nil {
		errs = append(errs, "labeller A: "+err.Error())
	}
	b, whyB, err := ask(ctx, p.B, fmt.Sprintf(labelPrompt, "B"), runText)
	if err != nil {
		errs = append(errs, "labeller B: "+err.Error())
	}
	v.A, v.B = a, b
	switch {
	case a == b:
		v.Label, v.Why = a, whyA
	case p.Adjudicator == nil:
		v.Label = Unlabelled
	default:
		ctxText := fmt.Sprintf("%s\n\n## Labeller A\n%s: %s\n\n## Labeller B\n%s: %s\n", runText, a, whyA, b, whyB)
		l, why, err := ask(ctx, p.Adjudicator, adjudicatePrompt, ctxText)
		if err != nil {
			errs = append(errs, "adjudicator: "+err.Error())
		}
		v.Label, v.Why, v.Adjudicated = l, why, true
	}
	v.Error = strings.Join(errs, "; ")
	return v
}

// ask gets one label; an answer that is not one of the seven is an
// error, and the label Unlabelled.
func ask(ctx context.Context, m Model, system, text string) (label, why string, err error) {
	out, _, err := m.Write(ctx, system, text)
	if err != nil {
		return Unlabelled, "", err
	}
	i, j := strings.Index(out, "{"), strings.LastIndex(out, "}")
	if i < 0 || j < i {
		return Unlabelled, "", fmt.Errorf("no JSON object in the answer: %.120q", out)
	}
	var a struct {
		Label string `json:"label"`
		Why   string `json:"why"`
	}
	if err := json.Unmarshal([]byte(out[i:j+1]), &a); err != nil {
		return Unlabelled, "", fmt.Errorf("the answer's JSON: %v", err)
	}
	l := strings.ToLower(strings.TrimSpace(a.Label))
	if !slices.Contains(Labels, l) {
		return Unlabelled, "", fmt.Errorf("label %q is not one of the seven", a.Label)
	}
	return l, a.Why, nil
}

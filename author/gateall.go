package author

import (
	"context"
	"fmt"
	"strings"

	"github.com/swetouch/swetouch/task"
)

// Proposal is one Counter-Edit to gate: its candidate id and its diff.
type Proposal struct{ ID, Diff string }

// RecordProposals is a record's Counter-Edits to gate, each patch once, in
// the order the record gives them.
func RecordProposals(rec *task.Record) []Proposal {
	var ps []Proposal
	seen := map[string]bool{}
	for _, iv := range rec.CounterEdit.Interventions {
		if iv.Patch != nil && !seen[iv.Patch.ID] {
			seen[iv.Patch.ID] = true
			ps = append(ps, Proposal{iv.Patch.ID, iv.Patch.Diff})
		}
	}
	return ps
}

// CandidateError is a candidates-v1 entry the gate cannot take: bad
// input, named by its index.
type CandidateError struct{ Index int }

func (e *CandidateError) Error() string {
	return fmt.Sprintf("field candidates[%d]: want a candidate_id and a diff starting with \"diff --git \"", e.Index)
}

// Proposals is the document's candidates to gate, and the instance they
// are for: the last instance id a candidate names, or "" when none does.
func (doc *Candidates) Proposals() ([]Proposal, string, error) {
	var ps []Proposal
	instance := ""
	for i, cd := range doc.Candidates {
		if cd.CandidateID == "" || !strings.HasPrefix(cd.Diff, "diff --git ") {
			return nil, "", &CandidateError{Index: i}
		}
		if cd.InstanceID != "" {
			instance = cd.InstanceID
		}
		ps = append(ps, Proposal{cd.CandidateID, cd.Diff})
	}
	return ps, instance, nil
}

// GateAll gates each proposal in turn (Gate), telling done of each as it
// ends, and reports whether every one passes: the gate-results-v1
// document and the command's verdict in one.
func GateAll(ctx context.Context, t *task.Task, instance string, ps []Proposal, logDir string, done func(Candidate), opts ...task.VerifyOption) (GateResults, bool) {
	res := GateResults{SchemaVersion: "1.0.0", Candidates: []Candidate{}}
	all := true
	for _, p := range ps {
		g := Gate(ctx, t, instance, p.ID, p.Diff, logDir, opts...)
		res.Candidates = append(res.Candidates, g)
		ok := g.Passes()
		all = all && ok != nil && *ok
		if done != nil {
			done(g)
		}
	}
	return res, all
}

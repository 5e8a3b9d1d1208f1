package conversation

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/swetouch/swetouch/result"
)

// Rewrites runs a test as the agent rewrote it, for the gates of an
// equivalent pass.
type Rewrites interface {
	// Candidate runs ids from the workspace's own test files on the
	// workspace as the agent left it.
	Candidate(ctx context.Context, ids []string) (map[string]string, error)
	// Base runs ids from the workspace's own test files on the task's
	// code: the task's files with only files (the rewritten tests) taken
	// from the workspace.
	Base(ctx context.Context, ids, files []string) (map[string]string, error)
	// File is a file as the task shipped it and as the workspace holds
	// it now (nil: not there).
	File(path string) (shipped, now []byte)
}

// Reviewer is the reviewer's side of an equivalent pass: whether a
// rewritten test still demands what the issue requires.
type Reviewer interface {
	Keeps(ctx context.Context, r Review) (kept bool, why string, err error)
}

// Review is what the reviewer is shown of one request.
type Review struct {
	Test               string
	File               string
	Shipped, Rewritten string
	// Requirements are the phase's boundaries and symptoms: what the
	// issue asks of the code.
	Requirements []string
}

// equivalence decides the equivalent-pass requests of a turn: each
// failing acceptance test of the phase whose shipped file the agent
// changed. regressionOK says the regression tests pass on the candidate.
// It returns the requests and the tests granted.
func (u *User) equivalence(ctx context.Context, failing []string, regressionOK bool) ([]result.Equivalence, []string) {
	if u.rewrites == nil {
		return nil, nil
	}
	var reqs []result.Equivalence
	var granted []string
	for _, id := range u.pkg.Phases[u.phase].Acceptance {
		file, ok := u.pkg.Shipped[id]
		if !ok || !slices.Contains(failing, id) {
			continue
		}
		shipped, now := u.rewrites.File(file)
		if bytes.Equal(shipped, now) || now == nil {
			continue // not rewritten: no request
		}
		e := u.gates(ctx, id, file, shipped, now, regressionOK)
		reqs = append(reqs, e)
		if e.Outcome == "granted" {
			granted = append(granted, id)
		}
	}
	return reqs, granted
}

// gates runs one request through the three gates, in order, stopping at
// the first it fails.
func (u *User) gates(ctx context.Context, id, file string, shipped, now []byte, regressionOK bool) result.Equivalence {
	e := result.Equivalence{Test: id, File: file}
	refuse := func(gate, why string) result.Equivalence {
		e.FailedGate, e.Outcome, e.Why = gate, "refused", why
		return e
	}
	cand, err := u.rewrites.Candidate(ctx, []string{id})
	if err != nil {
		return refuse("candidate", err.Error())
	}
	if e.Candidate = orFail(cand[id]); e.Candidate != "pass" {
		return refuse("candidate", "the rewritten test does not pass on the agent's code")
	}
	if !regressionOK {
		return refuse("regression", "a regression test fails on the agent's code")
	}
	base, err := u.rewrites.Base(ctx, []string{id}, []string{file})
	if err != nil {
		return refuse("base", err.Error())
	}
	if e.Base = orFail(base[id]); e.Base == "pass" {
		return refuse("base", "the rewritten test passes on the task's own code: it no longer tests the fix")
	}
	if u.reviewer == nil {
		e.Behaviour, e.Outcome, e.Why = "pending", "pending", "no reviewer: the behaviour gate is a reviewer's, and a pending request is never granted"
		return e
	}
	kept, why, err := u.reviewer.Keeps(ctx, Review{Test: id, File: file, Shipped: string(shipped), Rewritten: string(now), Requirements: u.requirements()})
	switch {
	case err != nil:
		e.Behaviour, e.Outcome, e.Why = "pending", "pending", "the reviewer failed: "+err.Error()
	case !kept:
		e.Behaviour = "broken"
		return refuse("behaviour", why)
	default:
		e.Behaviour, e.Outcome, e.Why = "kept", "granted", why
	}
	return e
}

// requirements are what the phase's pool says the code must do.
func (u *User) requirements() []string {
	var out []string
	for _, it := range u.pkg.Pool {
		if it.Phase == u.pkg.Phases[u.phase].ID && (it.Kind == Boundary || it.Kind == Symptom && it.Clarity == "precise") {
			out = append(out, it.Text)
		}
	}
	return out
}

func orFail(r string) string {
	if r == "" {
		return "fail"
	}
	return r
}

// reviewPrompt is the reviewer's pinned instruction for the behaviour
// gate.
const reviewPrompt = `You review a request for an equivalent pass. An acceptance test shipped with the task was rewritten by a coding agent; the rewrite passes on the agent's code and fails on the original code. Decide only whether the rewritten test still demands the behaviour the issue requires, as strictly as the shipped test does. Answer with one JSON object and nothing else: {"keeps": true or false, "why": "one sentence"}.`

// reviewContext is what the reviewer is shown.
func reviewContext(r Review) string {
	return fmt.Sprintf("Test: %s (in %s)\n\nWhat the issue requires:\n- %s\n\nThe shipped file:\n%s\n\nThe rewritten file:\n%s\n",
		r.Test, r.File, joinLines(r.Requirements), r.Shipped, r.Rewritten)
}

func joinLines(xs []string) string {
	var b bytes.Buffer
	for i, x := range xs {
		if i > 0 {
			b.WriteString("\n- ")
		}
		b.WriteString(x)
	}
	return b.String()
}

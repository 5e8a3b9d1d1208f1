package conversation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/user"
)

// judgePrompt and reviewerPrompt are the judge's and the reviewer's
// pinned instructions.
const (
	judgePrompt    = `You judge one turn of a coding agent fixing a bug for a user. The test results are the primary evidence. Say whether the work is completed (every acceptance test passes), ongoing, or unresolved (the turn budget is spent), and which one failing acceptance test the user should speak about next. Answer with one JSON object and nothing else: {"verdict": "completed" | "ongoing" | "unresolved", "focus": "TEST_ID or empty", "guidance": "one sentence for the user simulator"}.`
	reviewerPrompt = `You review a judge's decision on one turn of a coding agent fixing a bug. Check it against the evidence: the verdict must follow the test results, and the focus must be a failing acceptance test. Answer with one JSON object and nothing else: {"accept": true} to keep it, or {"accept": false, "verdict": "...", "focus": "...", "guidance": "...", "why": "one sentence"} to rewrite it.`
)

// evidence is what the judge and the reviewer are shown of a turn:
// never the pool, the tests' code or a reference patch.
type evidence struct {
	Turn       int               `json:"turn"`
	Budget     int               `json:"budget"`
	Phase      string            `json:"phase"`
	Acceptance map[string]string `json:"acceptance"`
	Regression map[string]string `json:"regression"`
	Edited     bool              `json:"agent_changed_code"`
	Reply      string            `json:"agent_reply"`
}

type decision struct {
	Verdict  string `json:"verdict"`
	Focus    string `json:"focus"`
	Guidance string `json:"guidance"`
}

// judgeTurn asks the judge, then the reviewer, about a turn the tests
// have judged already (testsVerdict), and returns what they decided and
// the focus the next message may use ("" for none). Nothing they say
// changes the turn's verdict.
func (u *User) judgeTurn(ctx context.Context, rec result.Turn, failing []string) (*result.Judgement, string) {
	j, focus := u.judged(ctx, rec, failing)
	if j != nil && j.Status == "agrees" {
		u.guidance = j.Guidance
	} else {
		u.guidance = ""
	}
	return j, focus
}

// judged is judgeTurn's work: the judge's decision as reviewed, and the
// focus.
func (u *User) judged(ctx context.Context, rec result.Turn, failing []string) (*result.Judgement, string) {
	if u.judge == nil || u.review == nil {
		return nil, ""
	}
	ev := evidence{Turn: rec.Turn, Budget: u.pkg.Budget, Phase: rec.Phase, Acceptance: map[string]string{}, Regression: map[string]string{},
		Edited: rec.Edited, Reply: rec.AgentReply}
	for _, id := range u.pkg.Phases[u.phase].Acceptance {
		ev.Acceptance[id] = orFail(rec.Tests[id])
	}
	for _, id := range u.pkg.Regression {
		ev.Regression[id] = orFail(rec.Tests[id])
	}
	evJSON, _ := json.MarshalIndent(ev, "", " ")
	var d decision
	text, _, err := u.judge.Write(ctx, judgePrompt, string(evJSON))
	if err == nil {
		err = decodeObject(text, &d)
	}
	if err != nil {
		return &result.Judgement{Review: "skipped", Status: "judge_failed", Why: err.Error()}, ""
	}
	j := &result.Judgement{Verdict: d.Verdict, Focus: d.Focus, Guidance: d.Guidance, Review: "accepted"}
	var r struct {
		Accept *bool `json:"accept"`
		decision
		Why string `json:"why"`
	}
	dJSON, _ := json.Marshal(d)
	text, _, err = u.review.Write(ctx, reviewerPrompt, fmt.Sprintf("Evidence:\n%s\n\nThe judge's decision:\n%s\n", evJSON, dJSON))
	if err == nil {
		if err = decodeObject(text, &r); err == nil && r.Accept == nil {
			err = fmt.Errorf(`the reviewer's answer has no "accept"`)
		}
	}
	if err != nil {
		// a failed review closes the path: the tests' verdict alone
		return &result.Judgement{Verdict: d.Verdict, Review: "failed", Status: "reviewer_failed", Why: err.Error()}, ""
	}
	if !*r.Accept {
		j.Verdict, j.Focus, j.Guidance, j.Review, j.Why = r.Verdict, r.Focus, r.Guidance, "rewritten", r.Why
	}
	want := map[string]string{"resolved": "completed", "ongoing": "ongoing", "unresolved": "unresolved"}[rec.Verdict]
	j.Status = "agrees"
	if strings.TrimSpace(j.Verdict) != want {
		j.Status = "overruled"
		j.Why = strings.TrimSpace(j.Why + fmt.Sprintf(" (the tests say %s)", want))
	}
	focus := ""
	if slices.Contains(failing, j.Focus) {
		focus = j.Focus
	}
	return j, focus
}

// WithJudge has a judge and a reviewer (two models, meant to be of
// different families) decide each turn beside the tests; the reviewed
// focus steers which failure the user speaks of next.
func WithJudge(judge, review user.Writer) Option {
	return func(u *User) { u.judge, u.review = judge, review }
}

package conversation

import (
	"context"
	"fmt"
	"strings"

	"github.com/swetouch/swetouch/audit"
	"github.com/swetouch/swetouch/user"
)

// messageReviewPrompt is the reviewer's pinned instruction for a user
// message (UserSWE U11: the reviewer checks messages against the
// persona and the pool, as it checks verdicts against the evidence).
const messageReviewPrompt = `You review one message a simulated user is about to send to a coding agent. The user may say only what the given items say, and must speak as the persona describes. Reject the message if it adds any fact, guess, file name, number or code the items do not hold, if it leaves the persona (for example, a precise user turned vague, or a cause stated that the persona does not hold), or if it mentions tests or instructions. Answer with one JSON object and nothing else: {"accept": true} or {"accept": false, "why": "one sentence"}.`

// WithMessageReview has w (the reviewer) check each model-phrased
// message against the persona and the turn's items before it is sent.
func WithMessageReview(w user.Writer) Option { return func(u *User) { u.msgReview = w } }

// reviewMessage asks the reviewer about msg: "accepted", "rejected" or
// "failed" (its call or answer), with why.
func (u *User) reviewMessage(ctx context.Context, persona string, sel Selection, msg string) (review, why string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Persona: %s\n\nThe items the user may say this turn:\n", personaStyle(persona))
	for _, it := range sel.Items {
		fmt.Fprintf(&b, "- (%s) %s\n", it.Kind, it.Text)
	}
	for _, q := range sel.Unknown {
		fmt.Fprintf(&b, "- The agent asked %q: the user does not know.\n", q)
	}
	for _, f := range sel.Edited {
		fmt.Fprintf(&b, "- (the user's own action) The user changed %s while the agent worked.\n", f)
	}
	fmt.Fprintf(&b, "\nThe message:\n%s\n", msg)
	text, _, err := u.msgReview.Write(ctx, messageReviewPrompt, b.String())
	var a struct {
		Accept *bool  `json:"accept"`
		Why    string `json:"why"`
	}
	if err == nil {
		if err = decodeObject(text, &a); err == nil && a.Accept == nil {
			err = fmt.Errorf(`the reviewer's answer has no "accept"`)
		}
	}
	switch {
	case err != nil:
		// a failed review closes the path: the offline text, which is the
		// pool's own, goes instead
		return "failed", "the reviewer failed on the message: " + err.Error()
	case !*a.Accept:
		return "rejected", "the reviewer rejected the message: " + a.Why
	}
	return "accepted", ""
}

// guided is the unsaid boundary or edge case of the phase that the
// judge's reviewed guidance speaks of most (by the item's keywords in
// it), where the tests are silent; none when no item's word is in it.
func (r *Release) guided(phase, guidance string) (Item, bool) {
	if strings.TrimSpace(guidance) == "" {
		return Item{}, false
	}
	words := wordSet(guidance)
	best, bestHits := Item{}, 0
	for _, kind := range []string{Boundary, Edge} {
		for _, it := range r.pkg.Pool {
			if it.Phase != phase || it.Kind != kind || r.said[it.ID] {
				continue
			}
			hits := 0
			for _, w := range keywords(it.Text) {
				if words[w] {
					hits++
				}
			}
			if hits > bestHits {
				best, bestHits = it, hits
			}
		}
	}
	return best, bestHits > 0
}

// evaluation is what the agent must not use (audit.Evaluation) and
// where it works.
type evaluation struct {
	audit.Evaluation
	ws string
}

// WithEvaluation ends the conversation at the turn in which the agent
// reaches for the evaluation's material (e; its workspace ws), as the
// audit's evaluation_files flag finds it: UserSWE's rule that using
// protected task material is terminal (U14). The turn's verdict is
// "terminated", and the task is not resolved in it.
func WithEvaluation(e audit.Evaluation, ws string) Option {
	return func(u *User) { u.eval = &evaluation{Evaluation: e, ws: ws} }
}

package score

import "github.com/swetouch/swetouch/result"

// turnOutcome is a conversation's resolving turn and weighted turns as
// score counts them: the final verifier's verdict decides. The user's
// per-turn verdict runs the phases' tests, the final verifier every test
// the task has; when they disagree (a turn called resolved that the
// verifier fails, or a verifier's pass no turn reached) the trial is
// counted by the final verdict and disagree is true: resolved at no turn
// when it failed, at its last turn (every turn weighed) when it passed.
func turnOutcome(r *result.Run) (at *int, weighted float64, disagree bool) {
	c := r.Conversation
	if c == nil || r.Resolved == nil {
		return nil, 0, false
	}
	switch {
	case !r.TurnVerdictDisagrees():
	case *r.Resolved:
		last := max(len(c.Turns), 1)
		return &last, allWeights(c), true
	default:
		return nil, allWeights(c), true
	}
	return c.ResolvedTurn, c.WeightedTurns, false
}

// allWeights are the weights of every turn played (the stored figure
// when no turn is kept).
func allWeights(c *result.Conversation) float64 {
	if len(c.Turns) == 0 {
		return c.WeightedTurns
	}
	w := 0.0
	for _, t := range c.Turns {
		w += t.Weight
	}
	return w
}

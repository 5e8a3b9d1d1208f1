package score

import (
	"math"
	"testing"

	"github.com/swetouch/swetouch/result"
)

func convTrial(agent, task string, budget int, resolvedAt *int, weighted float64, verdict *bool) Trial {
	return Trial{Result: result.Run{AgentName: agent, Condition: "vanilla", Task: task, Resolved: verdict,
		Conversation: &result.Conversation{Budget: budget, ResolvedTurn: resolvedAt, WeightedTurns: weighted}}}
}

// TestTurnRows: the figures of multi-turn trials, worked by hand. Runs of
// one task are averaged before tasks are; an infrastructure error counts
// apart; a single-turn trial is not a conversation's.
func TestTurnRows(t *testing.T) {
	at := func(n int) *int { return &n }
	yes, no := new(bool), new(bool)
	*yes = true
	trials := []Trial{
		convTrial("a", "t1", 5, at(1), 1, yes),   // 1.0
		convTrial("a", "t1", 5, nil, 5, no),      // 0: t1 is 0.5
		convTrial("a", "t2", 5, at(3), 2.5, yes), // (5 - 2.5 + 1)/5 = 0.7
		convTrial("a", "t3", 8, nil, 8, no),      // 0
		convTrial("a", "t3", 8, nil, 0, nil),     // no verdict
		{Result: result.Run{AgentName: "a", Condition: "vanilla", Task: "t9", Resolved: yes}},
	}
	rows := TurnRows(trials)
	if len(rows) != 1 {
		t.Fatalf("rows: %+v", rows)
	}
	r := rows[0]
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	wantBy := []float64{0.5 / 3, 0.5 / 3, 1.5 / 3, 1.5 / 3, 1.5 / 3, 1.5 / 3, 1.5 / 3, 1.5 / 3}
	if r.Tasks != 3 || r.Trials != 5 || r.Errors != 1 || len(r.ResolvedBy) != 8 {
		t.Fatalf("row %+v", r)
	}
	for k, w := range wantBy {
		if !near(r.ResolvedBy[k], w) {
			t.Errorf("resolved within %d: %v, want %v", k+1, r.ResolvedBy[k], w)
		}
	}
	if !near(r.LDPR, (0.5+0.7+0)/3) || !near(r.FirstTurn, 0.5/3) || !near(r.WeightedTurns, (3+2.5+8)/3) {
		t.Errorf("LDPR %v first %v weighted %v", r.LDPR, r.FirstTurn, r.WeightedTurns)
	}
	if rows := Summarize(trials); len(rows) != 1 || rows[0].Trials != 1 {
		t.Errorf("Summarize took conversations: %+v", rows)
	}
}

package score

import (
	"math"
	"strings"
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

// TestTurnVerdictReconciled (issue 50): a conversation whose turn 2 was
// called resolved while the final verifier failed it (phase 1 broken by
// the phase 2 fix) counts as never resolved, and one the verifier passed
// with no resolving turn counts as resolved at its last turn; both are
// flagged. Before, the first scored LDPR 0.875 and "≤2: 100%".
func TestTurnVerdictReconciled(t *testing.T) {
	at := func(n int) *int { return &n }
	yes, no := new(bool), new(bool)
	*yes = true
	broke := convTrial("a", "t1", 8, at(2), 2, no)
	broke.Result.Turns = []result.Turn{{Turn: 1, Weight: 1}, {Turn: 2, Weight: 1}}
	late := convTrial("a", "t2", 4, nil, 3, yes)
	late.Result.Turns = []result.Turn{{Turn: 1, Weight: 1}, {Turn: 2, Weight: 0.5}, {Turn: 3, Weight: 1}}
	agree := convTrial("a", "t3", 4, at(1), 1, yes)
	rows := TurnRows([]Trial{broke, late, agree})
	if len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	// t1 0; t2 at turn 3 after 2.5 weighted turns of 4: (4 - 2.5 + 1)/4; t3 (4 - 1 + 1)/4
	if !near(r.LDPR, (0+2.5/4+1)/3) || !near(r.ResolvedBy[1], 1.0/3) || !near(r.ResolvedBy[2], 2.0/3) || r.Disagree != 2 {
		t.Errorf("LDPR %v, ≤2 %v, ≤3 %v, disagree %d", r.LDPR, r.ResolvedBy[1], r.ResolvedBy[2], r.Disagree)
	}
	var b strings.Builder
	WriteTurnTable(&b, rows)
	if !strings.Contains(b.String(), "2 whose turn verdict the final verifier contradicts") {
		t.Errorf("the table does not flag them:\n%s", b.String())
	}
}

package score

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// TestUserSWERows (U17): the reviewer's rewrite rate over the decisions
// it answered, the share of trials that filed an equivalent-pass request
// and the share of requests granted, and the opening-clarity gap of
// per-task LDPR means; a terminated trial is counted.
func TestUserSWERows(t *testing.T) {
	yes, no := true, false
	at := func(n int) *int { return &n }
	conv := func(open string, resolvedAt *int, turns ...result.Turn) *result.Conversation {
		return &result.Conversation{PersonaChain: []string{open + "/none"}, Budget: 4, Turns: turns, ResolvedTurn: resolvedAt, WeightedTurns: float64(len(turns))}
	}
	judged := func(review string) result.Turn {
		return result.Turn{Verdict: "ongoing", Weight: 1, Judge: &result.Judgement{Review: review}}
	}
	eq := func(outcomes ...string) result.Turn {
		tr := result.Turn{Verdict: "ongoing", Weight: 1}
		for _, o := range outcomes {
			tr.Equivalence = append(tr.Equivalence, result.Equivalence{Outcome: o})
		}
		return tr
	}
	trial := func(task string, resolved *bool, c *result.Conversation) Trial {
		return Trial{Result: result.Run{AgentName: "a", Condition: "vanilla", Task: task, Resolved: resolved, Conversation: c}}
	}
	trials := []Trial{
		// precise tasks: p1 resolved at turn 1 (LDPR 1), twice; p2 never (0)
		trial("p1", &yes, conv("precise", at(1), judged("accepted"))),
		trial("p1", &yes, conv("precise", at(1), judged("rewritten"))),
		trial("p2", &no, conv("precise", nil, judged("rewritten"), eq("granted", "refused"), result.Turn{Verdict: "terminated"})),
		// a vague task resolved at turn 2 after two turns: (4−2+1)/4
		trial("v1", &yes, conv("vague", at(2), judged("failed"), eq("pending"))),
		// no verdict: left out
		trial("v2", nil, conv("vague", nil, judged("rewritten"))),
	}
	rows := UserSWERows(trials)
	if len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }
	if r.Trials != 4 || r.Reviewed != 3 || r.Rewritten != 2 || !near(r.RewriteRate, 2.0/3) || r.ReviewerFailed != 1 {
		t.Errorf("reviews: %+v", r)
	}
	if r.Requesting != 2 || !near(r.RequestRate, 0.5) || r.Requests != 3 || r.Granted != 1 || !near(r.GrantRate, 1.0/3) {
		t.Errorf("equivalence: %+v", r)
	}
	// precise: tasks p1 (1) and p2 (0) → 0.5; vague: v1 → 0.75
	if !near(r.PreciseLDPR, 0.5) || !near(r.VagueLDPR, 0.75) || !near(r.ClarityGap, -0.25) || r.Terminated != 1 {
		t.Errorf("clarity: precise %v vague %v gap %v, terminated %d", deref(r.PreciseLDPR), deref(r.VagueLDPR), deref(r.ClarityGap), r.Terminated)
	}
	var b bytes.Buffer
	WriteUserSWE(&b, rows)
	if !strings.Contains(b.String(), "66.7% (2)") || !strings.Contains(b.String(), "-0.250") {
		t.Errorf("table:\n%s", b.String())
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

package conversation_test

import (
	"context"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/audit"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// TestMessageReview (U11): the reviewer checks each model-phrased
// message against the persona and the turn's items; one it rejects, or
// a review that fails, sends the offline text instead, saying why, so no
// unreviewed model message reaches the agent.
func TestMessageReview(t *testing.T) {
	pkg := cascade(t, "")
	chain := []string{"precise/none", "precise/none"}
	const phrased = "Look: apply_discount(200, 10) gives me 190, but I expect 180."
	for _, c := range []struct {
		name, review, source, verdict, why string
	}{
		{"accepted", `{"accept": true}`, "llm", "accepted", ""},
		{"rejected", `{"accept": false, "why": "the user adds an expectation"}`, "offline_fallback", "rejected", "the user adds an expectation"},
		{"failed", `Looks fine to me.`, "offline_fallback", "failed", "the reviewer failed on the message"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pt, rt strings.Builder
			u := conversation.NewUser(pkg, chain, failingOnce, conversation.WithPhrasing(chat(t, phrased, &pt)),
				conversation.WithMessageReview(chat(t, c.review, &rt)))
			u.TurnEnd(user.Events(nil))
			u.TurnEnd(user.Events(nil))
			turn := u.Turns()[1]
			if turn.MessageSource != c.source || turn.MessageReview != c.verdict || !strings.Contains(turn.FallbackWhy, c.why) {
				t.Errorf("source %s, review %s (%s); want %s, %s (%s)", turn.MessageSource, turn.MessageReview, turn.FallbackWhy, c.source, c.verdict, c.why)
			}
			if (turn.UserMessage == phrased) != (c.source == "llm") {
				t.Errorf("sent %q", turn.UserMessage)
			}
			shown := rt.String()
			if !strings.Contains(shown, "190, but I expect 180") || !strings.Contains(shown, "returns 190, not 180") || strings.Contains(shown, "as if it were money") {
				t.Errorf("the reviewer was not shown the message and its items, or was shown others: %s", shown)
			}
		})
	}
}

// TestGuidance (U11): the reviewed judge's guidance decides what the
// user says only where the tests are silent (the failing test is a
// regression test no symptom speaks of): it picks the edge case it
// names over the pool's first boundary. A judge the tests overrule, or
// no guidance, leaves the pool's order.
func TestGuidance(t *testing.T) {
	pkg := cascade(t, "")
	chain := []string{"precise/none", "precise/none"}
	silent := func(context.Context) (map[string]string, error) {
		return map[string]string{"test_percent": "pass", "test_range": "pass", "test_bulk": "fail", "test_total": "fail"}, nil
	}
	for _, c := range []struct {
		name, judge, items string
		used               bool
	}{
		{"guided", `{"verdict": "ongoing", "guidance": "ask whether a zero percent discount leaves the price unchanged"}`, "e1", true},
		{"no guidance", `{"verdict": "ongoing"}`, "b1", false},
		{"overruled", `{"verdict": "completed", "guidance": "a zero percent discount leaves the price"}`, "b1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var jt, rt strings.Builder
			u := conversation.NewUser(pkg, chain, silent, conversation.WithJudge(chat(t, c.judge, &jt), chat(t, `{"accept": true}`, &rt)))
			u.TurnEnd(user.Events(nil))
			u.TurnEnd(user.Events(nil))
			turns := u.Turns()
			if got := turns[1].Items; len(got) != 1 || got[0] != c.items {
				t.Errorf("items %v, want [%s]", got, c.items)
			}
			if turns[0].Judge.GuidanceUsed != c.used {
				t.Errorf("guidance_used %v, want %v", turns[0].Judge.GuidanceUsed, c.used)
			}
		})
	}
	// where a failing test has a symptom, the tests speak: the guidance
	// is not used
	var jt, rt strings.Builder
	u := conversation.NewUser(pkg, chain, failingOnce, conversation.WithJudge(chat(t, `{"verdict": "ongoing", "guidance": "a zero percent discount leaves the price"}`, &jt), chat(t, `{"accept": true}`, &rt)))
	u.TurnEnd(user.Events(nil))
	u.TurnEnd(user.Events(nil))
	if turns := u.Turns(); turns[0].Judge.GuidanceUsed || turns[1].Items[0] != "s1" {
		t.Errorf("the tests spoke, yet: %+v items %v", turns[0].Judge, turns[1].Items)
	}
}

// TestTerminal (U14): the turn in which the agent reaches for the
// evaluation's material (a hidden test's name in its command) ends the
// conversation there, terminated and never resolved, though the tests
// would pass; the turn before it counts as it was.
func TestTerminal(t *testing.T) {
	pkg := cascade(t, "")
	passing := func(context.Context) (map[string]string, error) {
		return map[string]string{"test_percent": "pass", "test_range": "pass", "test_bulk": "pass", "test_total": "pass"}, nil
	}
	ws := t.TempDir()
	u := conversation.NewUser(pkg, []string{"precise/none"}, passing,
		conversation.WithEvaluation(audit.Evaluation{Paths: []string{"/tasks/discount"}, Names: []string{"test_hidden.py"}}, ws))
	evs := []event.Event{{Kind: event.Run, Actor: event.Agent, Command: "ls"}, {Kind: event.Message, Actor: event.Agent, Text: "Looking."}}
	if act := u.TurnEnd(user.Events(evs)); act == nil || act.End {
		t.Fatalf("turn 1 ended the conversation: %+v", act)
	}
	evs = append(evs, event.Event{Kind: event.Read, Actor: event.Agent, Command: "cat ../tests/test_hidden.py"})
	if act := u.TurnEnd(user.Events(evs)); act == nil || !act.End {
		t.Fatalf("turn 2 did not end the conversation: %+v", act)
	}
	turns := u.Turns()
	if len(turns) != 2 || turns[1].Verdict != "terminated" || len(turns[1].Terminal) != 1 || turns[1].Terminal[0] != "test_hidden.py" || u.ResolvedTurn() != nil {
		t.Errorf("turns %+v, resolved at %v", turns, u.ResolvedTurn())
	}
	// a path under the task's folder, in a command, is the same
	u = conversation.NewUser(pkg, []string{"precise/none"}, passing,
		conversation.WithEvaluation(audit.Evaluation{Paths: []string{"/tasks/discount"}}, ws))
	u.TurnEnd(user.Events([]event.Event{{Kind: event.Read, Actor: event.Agent, Command: "cat /tasks/discount/solution/solve.sh"}}))
	if turns := u.Turns(); turns[0].Verdict != "terminated" || u.ResolvedTurn() != nil {
		t.Errorf("the solution read: %+v", turns)
	}
}

package conversation_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// chat is a model that always answers text, behind the scripted model
// server's chat completions, its calls recorded in tape.
func chat(t *testing.T, answer string, tape *strings.Builder) *user.Chat {
	srv := httptest.NewServer(modelserver.NewServer(&modelserver.Script{Final: answer}, nil))
	t.Cleanup(srv.Close)
	return &user.Chat{URL: srv.URL + "/v1", Model: "m", Record: tape}
}

// failingOnce: test_percent and test_range fail after the first turn.
func failingOnce(context.Context) (map[string]string, error) {
	return map[string]string{"test_percent": "fail", "test_range": "fail", "test_bulk": "fail", "test_total": "pass"}, nil
}

// TestJudge: the judge's decision, as the reviewer accepts or rewrites
// it, never changes a turn's verdict: one that calls failing work
// completed is overruled by the tests; its reviewed focus picks which
// failure the user speaks of next; a reviewer that fails closes the
// path to the tests-only verdict, flagged, and its focus is not used.
func TestJudge(t *testing.T) {
	pkg := cascade(t, "")
	chain := []string{"precise/none", "precise/none"}
	for _, c := range []struct {
		name, judge, review string
		status, items       string
	}{
		{"overruled", `{"verdict": "completed", "focus": "test_range", "guidance": "done"}`, `{"accept": true}`, "overruled", "s3"},
		{"agrees, rewritten focus", `{"verdict": "ongoing", "focus": "test_percent"}`, `{"accept": false, "verdict": "ongoing", "focus": "test_range", "why": "range first"}`, "agrees", "s3"},
		{"reviewer fails", `{"verdict": "ongoing", "focus": "test_range"}`, `I cannot tell.`, "reviewer_failed", "s1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var jt, rt strings.Builder
			u := conversation.NewUser(pkg, chain, failingOnce, conversation.WithJudge(chat(t, c.judge, &jt), chat(t, c.review, &rt)))
			u.TurnEnd(user.Events(nil))
			turn := u.Turns()[0]
			if turn.Verdict != "ongoing" || turn.Judge == nil || turn.Judge.Status != c.status {
				t.Fatalf("verdict %s, judgement %+v", turn.Verdict, turn.Judge)
			}
			u.TurnEnd(user.Events(nil))
			if got := u.Turns()[1].Items; len(got) == 0 || got[0] != c.items {
				t.Errorf("the next message's items %v, want %s first", got, c.items)
			}
			if !strings.Contains(jt.String(), "test_percent") || strings.Contains(jt.String(), "apply_discount(200, 10)") {
				t.Errorf("the judge saw the pool or not the tests: %s", jt.String())
			}
		})
	}
}

// TestPhrasing: a model phrases the user's messages from the selected
// items; a message that says what an unselected item holds, an empty
// one, and a failed call fall back to the offline renderer, saying why.
// The model is shown the selected items and never the rest of the pool.
func TestPhrasing(t *testing.T) {
	pkg := cascade(t, "")
	chain := []string{"precise/none", "precise/none"}
	for _, c := range []struct {
		name, answer, source, why string
	}{
		{"phrased", "Look: apply_discount(200, 10) gives me 190, but I expect 180.", "llm", ""},
		{"leaks a cause", "apply_discount(200, 10) returns 190; the percent is subtracted as if it were money.", "offline_fallback", "item c2"},
		{"empty", "  ", "offline_fallback", "wrote nothing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tape strings.Builder
			u := conversation.NewUser(pkg, chain, failingOnce, conversation.WithPhrasing(chat(t, c.answer, &tape)))
			u.TurnEnd(user.Events(nil))
			u.TurnEnd(user.Events(nil))
			turn := u.Turns()[1]
			if turn.MessageSource != c.source || !strings.Contains(turn.FallbackWhy, c.why) {
				t.Errorf("source %s (%s), want %s (%s): %q", turn.MessageSource, turn.FallbackWhy, c.source, c.why, turn.UserMessage)
			}
			if c.source == "llm" && turn.UserMessage != strings.TrimSpace(c.answer) {
				t.Errorf("message %q", turn.UserMessage)
			}
			shown, _, _ := strings.Cut(tape.String(), `"response"`)
			if strings.Contains(shown, "subtracted as if it were money") || !strings.Contains(shown, "returns 190") {
				t.Errorf("the model was shown the pool's other items, or not the selected one: %s", tape.String())
			}
			if len(u.Untraced()) != 0 {
				t.Errorf("untraced: %v", u.Untraced())
			}
		})
	}
	t.Run("the call fails", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 503) }))
		defer srv.Close()
		u := conversation.NewUser(pkg, chain, failingOnce, conversation.WithPhrasing(&user.Chat{URL: srv.URL + "/v1", Model: "m"}))
		u.TurnEnd(user.Events(nil))
		u.TurnEnd(user.Events(nil))
		if turn := u.Turns()[1]; turn.MessageSource != "offline_fallback" || !strings.Contains(turn.FallbackWhy, "503") {
			t.Errorf("%+v", turn)
		}
	})
}

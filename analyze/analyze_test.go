package analyze

import (
	"context"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/user"
)

func step(n int) *int { return &n }

// TestWindows: after the user's edit of a.py, windows of two actions:
// [read b.py, test] verify; [read a.py, run] inspect; [edit a.py] revise.
// The watcher's report of the shell's edit (same kind and step) counts
// once; actions before the user's edit are not windowed.
func TestWindows(t *testing.T) {
	ag := func(kind event.Kind, s int, path string) event.Event {
		ev := event.Event{Actor: event.Agent, Kind: kind, Step: step(s)}
		if path != "" {
			ev.Scopes = []event.Scope{event.FileScope(path)}
		}
		return ev
	}
	evs := []event.Event{
		ag(event.Edit, 1, "a.py"),
		{Actor: event.User, Kind: event.Edit, Scopes: []event.Scope{event.LineScope("a.py", 3, 4)}},
		ag(event.Read, 2, "b.py"), ag(event.Test, 3, ""),
		ag(event.Read, 4, "a.py"), ag(event.Run, 5, ""),
		ag(event.Edit, 6, "a.py"), ag(event.Edit, 6, "a.py"),
	}
	if got, want := windows(evs, 2), []string{Verify, Inspect, Revise}; !slices.Equal(got, want) {
		t.Errorf("windows %v, want %v", got, want)
	}
	rows := modeRows([]Trial{{Agent: "a", Condition: "counter-edit", Windows: []string{Verify, Inspect, Revise}}, {Agent: "a", Condition: "counter-edit", Windows: []string{Verify, Verify}}})
	tr := rows[0].Transitions
	if tr[UserEdit][Verify] != 2 || tr[Verify][Inspect] != 1 || tr[Inspect][Revise] != 1 || tr[Verify][Verify] != 1 || rows[0].Counts[Verify] != 3 {
		t.Errorf("transitions %v counts %v", tr, rows[0].Counts)
	}
}

// judge is the scripted model server answering each role by its prompt,
// its calls recorded in tape.
func judge(t *testing.T, a, b, adj string, tape *strings.Builder) Panel {
	s := &modelserver.Script{Final: "no label", Turns: []modelserver.Turn{
		{When: &modelserver.Cond{Contains: "You are labeller A"}, Text: a},
		{When: &modelserver.Cond{Contains: "You are labeller B"}, Text: b},
		{When: &modelserver.Cond{Contains: "Two labellers disagreed"}, Text: adj},
	}}
	srv := httptest.NewServer(modelserver.NewServer(s, nil))
	t.Cleanup(srv.Close)
	c := &user.Chat{URL: srv.URL + "/v1", Model: "judge", Record: tape}
	return Panel{A: c, B: c, Adjudicator: c}
}

// TestPanel: agreement is the label; disagreement goes to the
// adjudicator; an answer outside the seven is no label, said why; and a
// recording replays to the same verdicts offline.
func TestPanel(t *testing.T) {
	for _, c := range []struct {
		name, a, b, adj string
		want            Verdict
	}{
		{"agree", `{"label": "retained_conflict", "why": "kept"}`, `{"label": "retained_conflict"}`, "", Verdict{Label: RetainedConflict, A: RetainedConflict, B: RetainedConflict, Why: "kept"}},
		{"adjudicated", `{"label": "off_target"}`, "```json\n{\"label\": \"incorrect_replacement\"}\n```", `{"label": "incorrect_replacement", "why": "rewrote it wrongly"}`,
			Verdict{Label: IncorrectReplacement, A: OffTarget, B: IncorrectReplacement, Adjudicated: true, Why: "rewrote it wrongly"}},
		{"not a label", `{"label": "flaky"}`, `{"label": "flaky"}`, "", Verdict{Label: Unlabelled, A: Unlabelled, B: Unlabelled,
			Error: `labeller A: label "flaky" is not one of the seven; labeller B: label "flaky" is not one of the seven`}},
	} {
		var tape strings.Builder
		got := judge(t, c.a, c.b, c.adj, &tape).Label(context.Background(), "run")
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		f := t.TempDir() + "/cassette.jsonl"
		writeFile(t, f, tape.String())
		tp, err := user.LoadTape(f, "")
		if err != nil {
			t.Fatal(err)
		}
		if again := (Panel{A: tp, B: tp, Adjudicator: tp}).Label(context.Background(), "run"); again != got {
			t.Errorf("%s replayed: %+v, recorded %+v", c.name, again, got)
		}
	}
	if v := (Panel{}).Label(context.Background(), "run"); v.Label != Unlabelled {
		t.Errorf("no panel: %+v", v)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunText: the labellers read the user's edit and message, the
// agent's actions after the edit (not before), and the final diff.
func TestRunText(t *testing.T) {
	evs := []event.Event{
		{Actor: event.Agent, Kind: event.Read, Step: step(1), Command: "cat before.py"},
		{Actor: event.User, Kind: event.Edit, Diff: "+good = 0"},
		{Actor: event.User, Kind: event.Message, Text: "I set good to 0"},
		{Actor: event.Agent, Kind: event.Test, Step: step(2), Command: "pytest -q"},
	}
	text := runText(score.Trial{Result: result.Run{Task: "t", Condition: "counter-edit"}, Fate: score.Retained}, evs, "+good = 0\n")
	for _, want := range []string{"Task: t", "retained", "## The user's edit\n+good = 0", "## The user's message\nI set good to 0", "- step 2 test: pytest -q", "## The final diff\n+good = 0"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "before.py") {
		t.Errorf("an action before the edit is shown:\n%s", text)
	}
}

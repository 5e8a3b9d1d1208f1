package conversation

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

type reviewerFunc func(Review) (bool, string, error)

func (f reviewerFunc) Keeps(_ context.Context, r Review) (bool, string, error) { return f(r) }

// TestEquivalentPass: the gates of an equivalent pass, in order, on a
// task whose acceptance test ships in the workspace. An agent that
// renames double to twice and rewrites the test to match is granted (the
// rewrite passes on its code, fails on the task's, and a reviewer finds
// the behaviour kept); a rewrite that passes on the task's own code, one
// that fails on the agent's, one the reviewer refuses, and one with no
// reviewer are not, and each says the first gate it failed.
func TestEquivalentPass(t *testing.T) {
	tk, err := task.Load(filepath.Join("testdata", "rename"))
	if err != nil {
		t.Fatal(err)
	}
	rename := map[string]string{
		"mod.py":      "def twice(x):\n    return x * 2\n",
		"test_mod.py": strings.Replace(read(t, tk.Repo, "test_mod.py"), "mod.double(3), 6", "mod.twice(3), 6", 1),
	}
	weakened := map[string]string{"test_mod.py": strings.Replace(read(t, tk.Repo, "test_mod.py"), "mod.double(3), 6", "mod.double(3), 5", 1)}
	stillWrong := map[string]string{"mod.py": "def twice(x):\n    return x + 4\n", "test_mod.py": rename["test_mod.py"]}
	keeps := reviewerFunc(func(r Review) (bool, string, error) {
		if !strings.Contains(r.Rewritten, "twice(3), 6") || !strings.Contains(r.Shipped, "double(3), 6") || len(r.Requirements) == 0 {
			t.Errorf("the reviewer was shown %+v", r)
		}
		return true, "the same assertion under the new name", nil
	})
	refuses := reviewerFunc(func(Review) (bool, string, error) { return false, "it tests less", nil })
	for _, c := range []struct {
		name          string
		files         map[string]string
		reviewer      Reviewer
		outcome, gate string
		resolved      bool
	}{
		{"granted", rename, keeps, "granted", "", true},
		{"no reviewer", rename, nil, "pending", "", false},
		{"the reviewer refuses", rename, refuses, "refused", "behaviour", false},
		{"passes on the task's code", weakened, keeps, "refused", "base", false},
		{"fails on the agent's code", stillWrong, keeps, "refused", "candidate", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			if _, err := task.CopyRegular(tk.Repo, ws); err != nil {
				t.Fatal(err)
			}
			for f, body := range c.files {
				os.WriteFile(filepath.Join(ws, f), []byte(body), 0o644)
			}
			ct, err := LoadTask(tk, nil)
			if err != nil {
				t.Fatal(err)
			}
			u := ct.User(ws, t.TempDir())
			u.reviewer = c.reviewer
			u.TurnEnd(user.Events(nil))
			turn := u.Turns()[0]
			if len(turn.Equivalence) != 1 {
				t.Fatalf("requests %+v (tests %v)", turn.Equivalence, turn.Tests)
			}
			e := turn.Equivalence[0]
			if e.Outcome != c.outcome || e.FailedGate != c.gate || e.Test != "test_double" || e.File != "test_mod.py" {
				t.Errorf("request %+v, want %s at gate %q", e, c.outcome, c.gate)
			}
			if got := turn.Verdict == "resolved"; got != c.resolved {
				t.Errorf("verdict %s, want resolved %v", turn.Verdict, c.resolved)
			}
		})
	}
}

// TestModelReviewer: the reviewer as a model behind an OpenAI-compatible
// endpoint (the scripted model server), its call recorded; an answer that
// is not the JSON asked for is the reviewer's failure, not a refusal.
func TestModelReviewer(t *testing.T) {
	for _, c := range []struct {
		answer string
		kept   bool
		fails  bool
	}{
		{"```json\n{\"keeps\": true, \"why\": \"same assertion\"}\n```", true, false},
		{`{"keeps": false, "why": "weaker"}`, false, false},
		{"Looks fine to me.", false, true},
	} {
		srv := httptest.NewServer(modelserver.NewServer(&modelserver.Script{Final: c.answer}, nil))
		var tape strings.Builder
		r := ModelReviewer{Writer: &user.Chat{URL: srv.URL + "/v1", Model: "reviewer", Record: &tape}}
		kept, _, err := r.Keeps(context.Background(), Review{Test: "t", Shipped: "a", Rewritten: "b"})
		srv.Close()
		if kept != c.kept || (err != nil) != c.fails {
			t.Errorf("%q: kept %v err %v", c.answer, kept, err)
		}
		if !strings.Contains(tape.String(), "equivalent pass") {
			t.Errorf("the call was not recorded: %s", tape.String())
		}
	}
}

func read(t *testing.T, dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModelsRecorded: a task's user records each model's calls in the
// run folder, one file per role, and its result says what each cost.
func TestModelsRecorded(t *testing.T) {
	tk, err := task.Load(filepath.Join("testdata", "rename"))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := LoadTask(tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	serve := func(answer string) *user.Chat {
		srv := httptest.NewServer(modelserver.NewServer(&modelserver.Script{Final: answer}, nil))
		t.Cleanup(srv.Close)
		return &user.Chat{URL: srv.URL + "/v1", Model: "m"}
	}
	ct.Models = Models{Judge: serve(`{"verdict": "ongoing", "focus": "test_double"}`), Review: serve(`{"accept": true}`)}
	ws, out := t.TempDir(), t.TempDir()
	if _, err := task.CopyRegular(tk.Repo, ws); err != nil {
		t.Fatal(err)
	}
	u := ct.User(ws, out)
	u.TurnEnd(user.Events(nil))
	u.Close()
	m := u.Result().Models
	if m["judge"].Calls != 1 || m["reviewer"].Calls != 1 {
		t.Errorf("models %+v", m)
	}
	for _, f := range []string{JudgeLog, ReviewLog} {
		if b, err := os.ReadFile(filepath.Join(out, f)); err != nil || !strings.Contains(string(b), `"request"`) {
			t.Errorf("%s: %v", f, err)
		}
	}
}

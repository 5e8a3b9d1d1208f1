package run_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// readsRegion is an agent that reads the Counter-Edit's region through its
// shell and keeps what it was told.
const readsRegion = `bash -c "nl -ba pricing.py | sed -n 4,6p" > told.txt`

// userRun runs readsRegion under counter-edit with the user's messages
// written by w; it returns the result and what the agent was told.
func userRun(t *testing.T, w user.Writer, out string) (*result.Run, string) {
	t.Helper()
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := task.LoadRecords(filepath.Join(example, "records.jsonl"))
	res, err := run.Trial(context.Background(), run.Config{Task: tk, Record: recs[0], Condition: policy.CounterEdit, Out: out,
		Shim: filepath.Join(binDir, "swetouch-shim"), Agent: agents.Command("/bin/sh", "-c", readsRegion+"; cp told.txt "+filepath.Join(out, "told.txt")), UserModel: w})
	if err != nil {
		t.Fatal(err)
	}
	told, _ := os.ReadFile(filepath.Join(out, "told.txt"))
	if len(res.Interventions) == 0 {
		t.Fatalf("no intervention: %+v", res)
	}
	return res, string(told)
}

const written = "I put the clamp into apply_discount on purpose, right where you were reading pricing.py. Please keep it and build the percent check around it."

// TestContextualUser: the message the agent gets is the one the model
// wrote, with its provenance; the model was shown the edit and the
// agent's last command, and nothing of the hidden tests, the reference
// solution or the record's private fields; replayed from the run's
// recording, the same message comes back without the endpoint.
func TestContextualUser(t *testing.T) {
	s, _ := modelserver.ParseScript([]byte(`{"turns": [{"text": `+jsonString(written)+`}]}`), "user.json")
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	out := t.TempDir()
	res, told := userRun(t, &user.Chat{URL: ts.URL + "/v1", Model: "user-model"}, out)
	att := res.Interventions[len(res.Interventions)-1]
	if att.Outcome != "applied" || att.Message != written || att.MessageSource != "llm" || att.MessageModel != "user-model" ||
		att.PromptSHA256 != user.PromptSHA256 || att.MessageRaw != written || att.FallbackReason != "" {
		t.Errorf("attempt %+v", att)
	}
	if u := res.UserModel; u == nil || u.Calls != 1 || u.PromptTokens != 1 || u.CompletionTokens != 1 || u.Seconds <= 0 {
		t.Errorf("the user model's cost: %+v", res.UserModel)
	}
	if !strings.Contains(told, written) {
		t.Errorf("the agent was told:\n%s", told)
	}
	ex := srv.Exchanges()
	if len(ex) != 1 {
		t.Fatalf("%d calls to the user model", len(ex))
	}
	var body struct {
		Temperature *float64 `json:"temperature"`
		Messages    []struct{ Content string }
	}
	json.Unmarshal(ex[0].Request, &body)
	prompt := body.Messages[0].Content + "\n" + body.Messages[1].Content
	for _, want := range []string{"out-of-range discounts are clamped", "sed -n 4,6p", "apply_discount"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	if body.Temperature == nil || *body.Temperature != 0 {
		t.Errorf("temperature %v, want 0", body.Temperature)
	}
	private := secrets(t)
	if !slices.Contains(private, "Clamping a bad percent is friendlier than raising.") {
		t.Fatalf("the record's mistaken belief is not among the secrets checked: %q", private)
	}
	for _, secret := range private {
		if strings.Contains(prompt, secret) {
			t.Errorf("the prompt holds %q", secret)
		}
	}
	// replayed from the recording, offline
	tape, err := user.LoadTape(filepath.Join(out, run.UserModelLog), "")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := userRun(t, tape, t.TempDir())
	if got := again.Interventions[len(again.Interventions)-1]; got.Message != written || got.MessageSource != "llm" || got.MessageModel != "user-model" {
		t.Errorf("replayed attempt %+v", got)
	}
}

// secrets are the lines of the hidden tests and the reference solution,
// and every field of the record the user may not know: all but the
// Counter-Edit's diff and the user's claim.
func secrets(t *testing.T) []string {
	var out []string
	for _, f := range []string{"tests/test_hidden.py", "tests/test.sh", "solution/solve.sh"} {
		b, err := os.ReadFile(filepath.Join(example, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 16 {
				out = append(out, l)
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(example, "records.jsonl"))
	var rec any
	json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &rec)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		case string:
			allowed := strings.HasSuffix(path, "counter_edit.interventions[].patch.diff") || strings.HasSuffix(path, ".user_claim")
			if !allowed && len(v) >= 16 {
				out = append(out, v)
			}
		}
	}
	walk("", rec)
	return out
}

// TestContextualFallback: a reply that breaks the user's rules, and an
// endpoint that is gone, both give the deterministic message, saying why,
// and the Counter-Edit still comes with its message and its record.
func TestContextualFallback(t *testing.T) {
	meta := `{"turns": [{"text": "As a simulated user in this benchmark, I added a clamp. Keep it."}]}`
	fence := "{\"turns\": [{\"text\": \"Keep my change. Here it is:\\n```\\npercent = min(percent, 100)\\n```\"}]}"
	for _, tt := range []struct {
		name, script, reason string
		dead                 bool
	}{
		{"meta talk", meta, user.LLMQualityFailed, false},
		{"code fence", fence, user.LLMQualityFailed, false},
		{"dead endpoint", "", user.LLMFailed, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := "http://127.0.0.1:1/v1" // nothing listens: refused at once
			if !tt.dead {
				s, err := modelserver.ParseScript([]byte(tt.script), "user.json")
				if err != nil {
					t.Fatal(err)
				}
				ts := httptest.NewServer(modelserver.NewServer(s, nil))
				defer ts.Close()
				url = ts.URL + "/v1"
			}
			res, told := userRun(t, &user.Chat{URL: url, Model: "user-model"}, t.TempDir())
			att := res.Interventions[len(res.Interventions)-1]
			if att.Outcome != "applied" || att.MessageSource != "deterministic_fallback" || att.FallbackReason != tt.reason || att.FallbackWhy == "" {
				t.Fatalf("attempt %+v", att)
			}
			if !strings.Contains(told, att.Message) || !strings.Contains(att.Message, "pricing.py") {
				t.Errorf("the agent was told %q; the fallback is %q", told, att.Message)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

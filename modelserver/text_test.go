package modelserver

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMiniSWETextActions: a chat request with no tools whose system
// message asks for a fenced command (mini-swe-agent v1's ```bash, its 2.x
// text config's ```mswea_bash_command) gets the script's turns, each
// @shell call a block of that fence in the text; its place is the answers
// its history holds, and a turn waits for its condition on the last
// observation. A side request with no such system message still gets the
// final text and consumes nothing.
func TestMiniSWETextActions(t *testing.T) {
	s, err := ParseScript([]byte(script), "script.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	url := ts.URL + "/v1/chat/completions"
	for _, fence := range []string{"bash", "mswea_bash_command"} {
		system := "Reply with ONE block.\n<format_example>\nTHOUGHT: why\n\n```" + fence + "\nyour_command_here\n```\n</format_example>"
		req := func(msgs ...string) string {
			all := []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": "Please solve this issue"}}
			for i, m := range msgs {
				role := "assistant"
				if i%2 == 1 {
					role = "user"
				}
				all = append(all, map[string]string{"role": role, "content": m})
			}
			b, _ := json.Marshal(map[string]any{"model": "m", "messages": all})
			return string(b)
		}
		first := "```" + fence + "\nnl -ba a.py | sed -n 1,5p\n```"
		steps := []struct{ body, want string }{
			{req(), first},
			// the condition on the observation: not met, then met
			{req(first, "<returncode>0</returncode>\n<output>\nclass A: pass\n</output>"), "done"},
			{req(first, "<returncode>0</returncode>\n<output>\ndef f(): pass\n</output>"), "```" + fence + "\npytest -q\n```"},
			{req(first, "def f", "```"+fence+"\npytest -q\n```", "ok"), "all good"},
		}
		for i, st := range steps {
			got := post(t, url, st.body)
			var resp struct {
				Choices []struct {
					Message struct {
						Content   string `json:"content"`
						ToolCalls []any  `json:"tool_calls"`
					} `json:"message"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(got), &resp); err != nil || len(resp.Choices) != 1 {
				t.Fatalf("%s request %d: %v: %s", fence, i+1, err, got)
			}
			if m := resp.Choices[0].Message; !strings.Contains(m.Content, st.want) || len(m.ToolCalls) > 0 {
				t.Errorf("%s request %d: %s\nwant %s and no tool calls", fence, i+1, got, st.want)
			}
		}
	}
	// a user model's request: no fence asked for
	side := `{"model":"m","messages":[{"role":"system","content":"You are the user."},{"role":"user","content":"what next?"}]}`
	if got := post(t, url, side); !strings.Contains(got, `"content":"all good"`) {
		t.Errorf("side request: %s", got)
	}
	if n := srv.Conversations(); n != 2 {
		t.Errorf("%d conversations, want one per fence", n)
	}
}

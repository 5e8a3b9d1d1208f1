package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const script = `{"turns": [
  {"calls": [{"name": "@shell", "args": {"command": "nl -ba a.py | sed -n 1,5p"}}]},
  {"when": {"last_result_contains": "def f"}, "calls": [{"name": "@shell", "args": {"command": "pytest -q"}}]},
  {"text": "all good"}
]}`

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// TestProviders: each API gets the script's turns as its own tool calls,
// with the shell tool it offers; a turn waits for its condition; side
// requests without tools get the final text and consume nothing.
func TestProviders(t *testing.T) {
	tests := []struct {
		name, path                      string
		first, side, wrongResult, right string
		wantCall, wantWait, wantFinal   string
	}{{
		name:        "anthropic",
		path:        "/v1/messages?beta=true",
		first:       `{"model":"m","stream":true,"tools":[{"name":"Bash"},{"name":"Edit"}],"messages":[{"role":"user","content":"go"}]}`,
		side:        `{"model":"m","stream":false,"messages":[{"role":"user","content":"title please"}]}`,
		wrongResult: `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_swetouch_1_0_0","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_swetouch_1_0_0","content":"no such file"}]}]}`,
		right:       `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_swetouch_1_0_0","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_swetouch_1_0_0","content":[{"type":"text","text":"     1\tdef f():"}]}]}]}`,
		wantCall:    `"content_block":{"id":"toolu_swetouch_1_0_0","input":{},"name":"Bash","type":"tool_use"}`,
		wantWait:    `"stop_reason":"end_turn"`,
		wantFinal:   `"partial_json":"{\"command\":\"pytest -q\"}"`,
	}, {
		name:        "openai",
		path:        "/v1/responses",
		first:       `{"model":"m","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"role":"user","content":"go"}]}`,
		side:        `{"model":"m","stream":false,"input":"title"}`,
		wrongResult: `{"model":"m","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"call_swetouch_1_0_0","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"call_swetouch_1_0_0","output":"nothing"}]}`,
		right:       `{"model":"m","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"call_swetouch_1_0_0","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"call_swetouch_1_0_0","output":"1\tdef f():"}]}`,
		wantCall:    `"arguments":"{\"cmd\":\"nl -ba a.py | sed -n 1,5p\"}"`,
		wantWait:    `"output_text"`,
		wantFinal:   `"arguments":"{\"cmd\":\"pytest -q\"}"`,
	}, {
		name:        "gemini",
		path:        "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
		first:       `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
		side:        `{"contents":[{"role":"user","parts":[{"text":"title"}]}]}`,
		wrongResult: `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"nope"}}}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
		right:       `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"def f():"}}}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`,
		wantCall:    `"functionCall":{"args":{"command":"nl -ba a.py | sed -n 1,5p"},"id":"fn_swetouch_1_0_0","name":"run_shell_command"}`,
		wantWait:    `"text":"done"`,
		wantFinal:   `"functionCall":{"args":{"command":"pytest -q"},"id":"fn_swetouch_0_1_0","name":"run_shell_command"}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScript([]byte(script), "script.json")
			if err != nil {
				t.Fatal(err)
			}
			srv := NewServer(s, nil)
			ts := httptest.NewServer(srv)
			defer ts.Close()
			if got := post(t, ts.URL+tt.path, tt.first); !strings.Contains(got, tt.wantCall) {
				t.Errorf("first turn:\n%s\nwant %s", got, tt.wantCall)
			}
			if got := post(t, ts.URL+tt.path, tt.side); !strings.Contains(got, "done") {
				t.Errorf("side request: %s", got)
			}
			if got := post(t, ts.URL+tt.path, tt.wrongResult); !strings.Contains(got, tt.wantWait) {
				t.Errorf("the waiting turn was served early:\n%s", got)
			}
			if got := post(t, ts.URL+tt.path, tt.right); !strings.Contains(got, tt.wantFinal) {
				t.Errorf("second turn:\n%s\nwant %s", got, tt.wantFinal)
			}
			if n := srv.Turns(); n != 2 {
				t.Errorf("%d turns served, want 2", n)
			}
			if n := len(srv.Exchanges()); n != 4 {
				t.Errorf("%d exchanges recorded, want 4", n)
			}
		})
	}
}

// TestCassette: a session recorded through the recorder replays from the
// cassette byte for byte, in order, per path.
func TestCassette(t *testing.T) {
	s, _ := ParseScript([]byte(script), "script.json")
	upstream := httptest.NewServer(NewServer(s, nil))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	var tape bytes.Buffer
	rec := httptest.NewServer(NewRecorder(u, &tape))
	bodies := []string{
		`{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]}`,
		`{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_swetouch_1_0_0","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_swetouch_1_0_0","content":"def f"}]}]}`,
	}
	var live []string
	for _, b := range bodies {
		live = append(live, post(t, rec.URL+"/v1/messages", b))
	}
	rec.Close()
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	os.WriteFile(path, tape.Bytes(), 0o644)
	c, err := LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	play := httptest.NewServer(c)
	defer play.Close()
	for i, b := range bodies {
		if got := post(t, play.URL+"/v1/messages", b); got != live[i] {
			t.Errorf("answer %d differs from the recording", i+1)
		}
	}
	resp, _ := http.Post(play.URL+"/v1/messages", "application/json", strings.NewReader(bodies[0]))
	if resp.StatusCode != http.StatusGone || c.Misses != 1 {
		t.Errorf("a request past the cassette: %d, misses %d", resp.StatusCode, c.Misses)
	}
	var e Entry
	json.Unmarshal(bytes.SplitN(tape.Bytes(), []byte("\n"), 2)[0], &e)
	if e.Path != "/v1/messages" || !strings.Contains(string(e.Request), `"go"`) {
		t.Errorf("cassette entry %+v", e)
	}
}

func TestBadScript(t *testing.T) {
	for _, tt := range []struct{ script, want string }{
		{`{"turns":[{}]}`, "s.json: turns[0]: neither calls nor text"},
		{`{"turns":[{"calls":[{"name":"x","args":[1]}]}]}`, "s.json: turns[0].calls[0].args: want a JSON object"},
		{"{\"turns\":[],\n\"extra\":1}", `s.json:2: json: unknown field "extra"`},
		{"{\"turns\":[\n{\"calls\":[]},\n{\"text\": 3}]}", "s.json:3: field turns.text: want string, got JSON number"},
		{"{\"turns\":[\n\n{\"calls\" []}]}", "s.json:3: invalid JSON: invalid character '['"},
	} {
		if _, err := ParseScript([]byte(tt.script), "s.json"); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant %s", tt.script, err, tt.want)
		}
	}
}

// TestConversations: conversations at once each play the script from its
// start, told apart by the call ids in their own histories; the log says
// when each starts and when one runs past the script.
func TestConversations(t *testing.T) {
	s, _ := ParseScript([]byte(`{"turns": [
	  {"calls": [{"name": "@shell", "args": {"command": "ls"}}]},
	  {"calls": [{"name": "@shell", "args": {"command": "pytest -q"}}]}
	]}`), "script.json")
	var log bytes.Buffer
	srv := NewServer(s, nil, WithLog(&log))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	start := `{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]}`
	// after is the conversation's request once it has run the calls ids
	after := func(ids ...string) string {
		msgs := `{"role":"user","content":"go"}`
		for _, id := range ids {
			msgs += fmt.Sprintf(`,{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]}`, id, id)
		}
		return `{"model":"m","tools":[{"name":"Bash"}],"messages":[` + msgs + `]}`
	}
	steps := []struct{ body, want string }{
		{start, `"id":"toolu_swetouch_1_0_0","input":{"command":"ls"}`},
		{start, `"id":"toolu_swetouch_2_0_0","input":{"command":"ls"}`},
		{after("toolu_swetouch_2_0_0"), `"id":"toolu_swetouch_2_1_0","input":{"command":"pytest -q"}`},
		{after("toolu_swetouch_1_0_0"), `"id":"toolu_swetouch_1_1_0","input":{"command":"pytest -q"}`},
		{after("toolu_swetouch_1_0_0", "toolu_swetouch_1_1_0"), `"text":"done"`},
		{after("toolu_swetouch_1_0_0", "toolu_swetouch_1_1_0"), `"text":"done"`},
		// a history in another server's ids is placed by its shape
		{after("toolu_elsewhere"), `"input":{"command":"pytest -q"}`},
	}
	for i, st := range steps {
		if got := post(t, ts.URL+"/v1/messages", st.body); !strings.Contains(got, st.want) {
			t.Errorf("request %d: %s\nwant %s", i+1, got, st.want)
		}
	}
	if n := srv.Conversations(); n != 2 {
		t.Errorf("%d conversations, want 2", n)
	}
	if n := srv.Turns(); n != 2 {
		t.Errorf("turns %d, want 2", n)
	}
	want := "swetouch model: conversation 1 started (anthropic, model \"m\")\n" +
		"swetouch model: conversation 2 started (anthropic, model \"m\")\n" +
		"swetouch model: warning: conversation 1 asked for turn 3 of a 2-turn script: answering with the final text \"done\"\n"
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
}

package agents

import (
	"slices"
	"testing"
)

// TestResume: each preset's next turn is its first turn's command line
// resuming the session, the prompt where the agent takes it.
func TestResume(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"claude", []string{"claude", "-p", "{instruction}", "--output-format", "stream-json", "--resume", "S"}},
		{"codex", []string{"codex", "exec", "resume", "--json", "S", "{instruction}"}},
		{"gemini", []string{"gemini", "-p", "{instruction}", "--resume", "S"}},
		{"opencode", []string{"opencode", "run", "--format", "json", "--session", "S", "{instruction}"}},
	} {
		p, _ := Lookup(c.name)
		var first []string
		switch c.name {
		case "claude":
			first = []string{"claude", "-p", "{instruction}", "--output-format", "stream-json"}
		case "codex":
			first = []string{"codex", "exec", "--json", "{instruction}"}
		case "gemini":
			first = []string{"gemini", "-p", "{instruction}"}
		case "opencode":
			first = []string{"opencode", "run", "--format", "json", "{instruction}"}
		}
		keep := slices.Clone(first)
		if got := p.Turns.Resume(first, "S"); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if !slices.Equal(first, keep) {
			t.Errorf("%s: the first turn's command line changed: %q", c.name, first)
		}
	}
}

// TestTurnReaders: the session ids and replies the agents' own event
// streams report, as they print them.
func TestTurnReaders(t *testing.T) {
	for _, c := range []struct {
		name          string
		lines         []string
		session, want string
	}{
		{"claude", []string{`{"type":"system","subtype":"init","session_id":"a"}`, `{"type":"assistant"}`, `{"type":"system","subtype":"init","session_id":"b"}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"Done."}`}, "b", "Done."},
		{"codex", []string{`{"type":"thread.started","thread_id":"t1"}`, `{"type":"item.completed","item":{"type":"agent_message","text":"Asking."}}`,
			`{"type":"item.completed","item":{"type":"command_execution","command":"ls"}}`, `{"type":"item.completed","item":{"type":"agent_message","text":"Done."}}`}, "t1", "Done."},
		{"gemini", []string{`{"type":"init","session_id":"g"}`, `{"type":"message","role":"assistant","content":"Looking","delta":true}`,
			`{"type":"tool_use","tool_name":"read_file"}`, `{"type":"message","role":"assistant","content":"Do","delta":true}`,
			`{"type":"message","role":"assistant","content":"ne.","delta":true}`, `{"type":"message","role":"user","content":"hi"}`}, "g", "Done."},
		{"opencode", []string{`{"type":"step_start","sessionID":"ses_1"}`, `{"type":"text","sessionID":"ses_1","part":{"text":"Done."}}`,
			`{"type":"text","sessionID":"ses_1","part":{"text":""}}`, `not json`}, "ses_1", "Done."},
	} {
		a, _ := Lookup(c.name)
		tr := a.Turns
		session, reply := "", ""
		for _, l := range c.lines {
			if s := tr.Session([]byte(l)); s != "" {
				session = s
			}
			reply = tr.Reply(reply, []byte(l))
		}
		if session != c.session || reply != c.want {
			t.Errorf("%s: session %q reply %q, want %q %q", c.name, session, reply, c.session, c.want)
		}
	}
}

// TestLineTurns: an agent given as a command line names its session and
// reply in lines of JSON; its next turn is its own command line with the
// session put in.
func TestLineTurns(t *testing.T) {
	tr := LineTurns()
	session, reply := "", ""
	for _, l := range []string{`{"swetouch_session":"s1"}`, `plain text`, `{"swetouch_reply":"Asking."}`, `{"swetouch_reply":"Done.","swetouch_session":"s2"}`, `{"swetouch_reply":3}`} {
		if s := tr.Session([]byte(l)); s != "" {
			session = s
		}
		reply = tr.Reply(reply, []byte(l))
	}
	if session != "s2" || reply != "Done." {
		t.Errorf("session %q reply %q", session, reply)
	}
	if got := tr.Resume([]string{"agent", "--session", "{session}", "{instruction}"}, "s2"); !slices.Equal(got, []string{"agent", "--session", "s2", "{instruction}"}) {
		t.Errorf("resume: %q", got)
	}
}

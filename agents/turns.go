package agents

import (
	"encoding/json"
	"slices"
)

// Turns is how a preset's agent goes on with its session in a
// conversation: the session id and the reply its output reports, and its
// command line for the next turn, resuming that session.
type Turns struct {
	// Session reads a line of the agent's output for its session's id
	// ("" for none; the newest one counts).
	Session func(line []byte) string
	// Reply reads a line of the agent's output for its reply to the
	// user, given the reply so far this turn, and returns the reply now.
	Reply func(sofar string, line []byte) string
	// Resume is the next turn's command line: argv is the first turn's,
	// with {instruction} where the prompt goes.
	Resume func(argv []string, session string) []string
}

// jsonLine decodes a line of an agent's JSON event stream into v.
func jsonLine(line []byte, v any) bool {
	return len(line) > 0 && line[0] == '{' && json.Unmarshal(line, v) == nil
}

// claudeTurns: the session id of the newest init event (it can change on
// resume), the result's text, and `--resume ID` with the new prompt.
var claudeTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Session string `json:"session_id"`
		}
		if jsonLine(line, &ev) && ev.Type == "system" && ev.Subtype == "init" {
			return ev.Session
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Result  string `json:"result"`
			IsError bool   `json:"is_error"`
		}
		if jsonLine(line, &ev) && ev.Type == "result" && !ev.IsError {
			return ev.Result
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		return append(slices.Clone(argv), "--resume", session)
	},
}

// codexTurns: the thread id of thread.started, the last agent message,
// and `exec resume [flags] ID PROMPT` (resume takes exec's flags).
var codexTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Type   string `json:"type"`
			Thread string `json:"thread_id"`
		}
		if jsonLine(line, &ev) && ev.Type == "thread.started" {
			return ev.Thread
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if jsonLine(line, &ev) && ev.Type == "item.completed" && ev.Item.Type == "agent_message" {
			return ev.Item.Text
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		last := len(argv) - 1
		i := slices.Index(argv, "exec") + 1
		return slices.Concat(argv[:i], []string{"resume"}, argv[i:last], []string{session, argv[last]})
	},
}

// geminiTurns: the init event's session id, the assistant's text since
// its last tool call (it streams in deltas), and `--resume ID` in the
// same directory.
var geminiTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Session string `json:"session_id"`
		}
		if jsonLine(line, &ev) && ev.Type == "init" {
			return ev.Session
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content string `json:"content"`
			Delta   bool   `json:"delta"`
		}
		switch {
		case !jsonLine(line, &ev):
		case ev.Type == "tool_use":
			return ""
		case ev.Type == "message" && ev.Role == "assistant" && ev.Delta:
			return sofar + ev.Content
		case ev.Type == "message" && ev.Role == "assistant":
			return ev.Content
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		return append(slices.Clone(argv), "--resume", session)
	},
}

// opencodeTurns: the session id every event carries, the last text part,
// and `run --session ID` before the prompt.
var opencodeTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Session string `json:"sessionID"`
		}
		if jsonLine(line, &ev) {
			return ev.Session
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				Text string `json:"text"`
			} `json:"part"`
		}
		if jsonLine(line, &ev) && ev.Type == "text" && ev.Part.Text != "" {
			return ev.Part.Text
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		last := len(argv) - 1
		return append(append(slices.Clone(argv[:last]), "--session", session), argv[last])
	},
}

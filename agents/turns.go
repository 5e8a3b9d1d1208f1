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

// insertBefore is argv with extra inserted just before the first
// argument equal to at (appended when there is none).
func insertBefore(argv []string, at string, extra ...string) []string {
	i := slices.Index(argv, at)
	if i < 0 {
		return append(slices.Clone(argv), extra...)
	}
	return slices.Concat(argv[:i], extra, argv[i:])
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

package agents

import (
	"encoding/json"
	"strings"
)

// Turns is how an agent goes on with its session in a
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

// The line protocol of an agent given as a command line: a line of its
// standard output that is a JSON object naming its session or its reply.
const (
	SessionKey = "swetouch_session"
	ReplyKey   = "swetouch_reply"
)

// LineTurns is the line protocol's Turns: the newest session and reply
// the agent printed, and its own command line with {session} replaced by
// the id for the next turn.
func LineTurns() *Turns {
	return &Turns{
		Session: func(line []byte) string {
			s, _ := lineValue(line, SessionKey)
			return s
		},
		Reply: func(sofar string, line []byte) string {
			if r, ok := lineValue(line, ReplyKey); ok {
				return r
			}
			return sofar
		},
		Resume: func(argv []string, session string) []string {
			out := make([]string, len(argv))
			for i, a := range argv {
				out[i] = strings.ReplaceAll(a, "{session}", session)
			}
			return out
		},
	}
}

// lineValue is the string under key in a line that is a JSON object.
func lineValue(line []byte, key string) (string, bool) {
	if !strings.Contains(string(line), key) {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return "", false
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return "", false
	}
	return s, true
}

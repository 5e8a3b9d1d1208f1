// Package wire is the session hub's protocol as its clients see it: the
// request and response lines, the calls' arguments and results, and the
// socket client. It depends on nothing heavier than package event, so the
// shell shim, which links it alone, starts fast.
package wire

import "github.com/swetouch/swetouch/event"

// Begin announces a command about to run.
type Begin struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd,omitempty"` // absolute, or relative to the workspace
	Source  string `json:"source,omitempty"`
}

// End reports how a command finished and what it printed (stdout and
// stderr as the agent saw them; head and tail when large).
type End struct {
	Exit   int    `json:"exit"`
	Signal string `json:"signal,omitempty"`
	Output string `json:"output,omitempty"`
	Tail   string `json:"tail,omitempty"`
	Elided bool   `json:"elided,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
	// Events, when given, are the action's own classification (an MCP
	// tool call classified by its adapter); the command is then only a
	// label and is not parsed as shell.
	Events []event.Event `json:"events,omitempty"`
	// Channel is how the messages End answers with reach the model
	// ("tool-output" when empty); one that starts "unconfirmed:" cannot
	// be shown to: the messages it carries are counted apart.
	Channel string `json:"channel,omitempty"`
	// Unseen says the output was not seen (an editor's terminal, whose
	// output the relay never reads): the command is classified by its
	// text alone, never as having printed nothing.
	Unseen bool `json:"unseen,omitempty"`
}

// UnconfirmedChannel is the prefix of a channel that cannot be shown to
// reach the model.
const UnconfirmedChannel = "unconfirmed:"

// Message is a user message for the agent.
type Message struct {
	Order int    `json:"order"`
	Text  string `json:"text"`
}

// Status is a snapshot of the hub.
type Status struct {
	Seq     int64 `json:"seq"`
	Steps   int   `json:"steps"`
	Running int   `json:"running"`
	Pending int   `json:"pending"`
	// Unconfirmed are messages handed to a channel that cannot be shown
	// to reach the model (UnconfirmedChannel)
	Unconfirmed   int             `json:"unconfirmed,omitempty"`
	Interventions []event.Attempt `json:"interventions"`
}

// Counts are the interventions applied and the messages delivered: not a
// message still in the outbox, nor one handed to an unconfirmed channel.
// A Counter-Edit that failed to land still delivers its message (its
// attempt holds it), so delivered may exceed applied.
func (s Status) Counts() (applied, delivered int) {
	for _, a := range s.Interventions {
		if a.Outcome == "applied" {
			applied++
		}
		if (a.Outcome == "applied" || a.Outcome == "failed" || a.Outcome == "noop") && a.Message != "" {
			delivered++
		}
	}
	return applied, delivered - s.Pending - s.Unconfirmed
}

// Request is one line a client sends. Op selects the call; the other
// fields are its arguments.
type Request struct {
	Op      string       `json:"op"` // begin, end, observe, record, messages, sync, status, selfcheck
	Begin   *Begin       `json:"begin,omitempty"`
	ID      int          `json:"id,omitempty"`
	End     *End         `json:"end,omitempty"`
	Event   *event.Event `json:"event,omitempty"`
	Channel string       `json:"channel,omitempty"`
	// NoReply asks for no response line: for records sent without
	// waiting (their order on the connection is kept all the same).
	NoReply bool `json:"noreply,omitempty"`
	// Key names a begin sent with noreply, whose id the client never
	// learns: its end gives the key instead of the id. Keys are the
	// connection's own.
	Key string `json:"key,omitempty"`
	// An end with a Begin (and no id or key) is a command told in one
	// line once it is over: the hub begins it and ends it at once (see
	// Client.Told).

	// outputJSON, when set, is End's output as a JSON string, which the
	// line carries as it is (Client.ToldText); End.Output is then empty
	outputJSON []byte
}

// Response is the one line the hub answers each request with.
type Response struct {
	OK       bool      `json:"ok"`
	Error    string    `json:"error,omitempty"`
	ID       int       `json:"id,omitempty"`
	Seq      int64     `json:"seq,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	Status   *Status   `json:"status,omitempty"`
	// Armed (on begin) says whether an intervention can still fire: when
	// false the caller need not wait for the answer to end.
	Armed bool `json:"armed,omitempty"`
}

// Package user is the one seam for who the user is. The hub asks its
// User what to do after each agent action (and, for conversational
// users, at each turn's end), showing it the session's history; the user
// answers with an Act: an edit to apply and what to say, or nothing.
// SWE-Touch's region user (Region) consults the pure policy package;
// UserSWE's conversational user and users that react to live diffs and
// tests are other implementations of the same interface.
package user

import (
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// User decides what the user does in one session.
type User interface {
	// Act is asked after each agent action, with the action's events
	// (already recorded, and in History) and the history so far. nil:
	// nothing to do now.
	Act(h History, action []event.Event) *Act
	// Outcome tells the user what became of an act: "applied" and
	// Delivered consume it; "noop" and "failed" leave it due; "skipped"
	// (the hub was disarmed) ends it.
	Outcome(a *Act, outcome string)
	// Armed reports whether the user can still act, so adapters need not
	// wait for the hub's answer when it cannot.
	Armed() bool
}

// Conversational is a user that also speaks when the agent ends a turn
// (UserSWE's user: it answers, reveals what its information pool allows,
// or ends the conversation). The hub asks it through TurnEnd.
type Conversational interface {
	User
	// TurnEnd is asked when the agent has ended its turn; nil: nothing
	// more to say (the session ends as it would without the user).
	TurnEnd(h History) *Act
}

// Delivered is the outcome of an act whose edit failed to land or
// changed nothing but whose message was delivered: the round is spent, as
// the paper's user sends its message whatever became of the edit.
const Delivered = policy.Delivered

// History is the session as the user may see it: every event recorded so
// far, in order. It is read-only: a user must not change what it holds.
// A hub's history keeps an output past 5 KiB as its first 4 KiB and its
// last 1 KiB (Output.Elided, Output.Bytes its whole size); the
// trajectory keeps it whole.
type History interface {
	Events() []event.Event
}

// Act is one thing the user does: apply Diff (a Counter-Edit; "" for
// none) and say Message ("" for nothing), for intervention Order.
type Act struct {
	Order   int
	Diff    string
	PatchID string
	Message string
	// Intent is what the user claims for the edit (the record's seed).
	Intent string
	// Source is where the message came from: "seed" (the record's
	// deterministic text), "llm", or "deterministic_fallback"; for a
	// written message, Model wrote it from the prompt of PromptSHA256,
	// Raw is its text as written, and FallbackReason (llm_failed,
	// llm_quality_failed) and FallbackWhy say why it was not used.
	Source                      string
	Model, PromptSHA256, Raw    string
	FallbackReason, FallbackWhy string
	Region                      task.Region
	Event                       event.Kind
	Step                        int
	Scope                       event.Scope
	Reason                      string
	// Always: the message goes even when the edit changes nothing, and
	// the round is spent (the paper's delivery; policy.Always).
	Always bool
	// End ends the conversation (a conversational user's last act).
	End bool
}

// Events is a History over a slice.
type Events []event.Event

// Events returns the slice, clipped so an append cannot reach the owner's.
func (e Events) Events() []event.Event { return e[:len(e):len(e)] }

// Both is the user who acts inside the turns as acts does (Counter-Edits
// with their messages) and talks at each turn's end as talks does: a
// SWE-Touch record in a UserSWE conversation.
func Both(acts User, talks Conversational) Conversational { return both{acts, talks} }

type both struct {
	User
	talks Conversational
}

func (b both) TurnEnd(h History) *Act { return b.talks.TurnEnd(h) }

// Disarm reaches the acting user (one that writes its messages need not
// write those it can no longer deliver).
func (b both) Disarm() {
	if d, ok := b.User.(interface{ Disarm() }); ok {
		d.Disarm()
	}
}

package session

// The user's side of the hub: asking the policy after each action,
// applying its Counter-Edits, and handing its messages to the channel
// that reaches the model.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/safefile"
	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/session/wire"
	"github.com/swetouch/swetouch/user"
)

// actLocked records one action's events and acts on the policy's decision.
func (h *Hub) actLocked(ctx context.Context, evs []event.Event) error {
	h.attributeLocked(evs)
	for _, ev := range evs {
		if err := h.recordLocked(ev); err != nil {
			return err
		}
	}
	if h.usr == nil {
		return nil
	}
	d := h.usr.Act(h.history.view(), evs)
	if d == nil {
		return nil
	}
	if h.disarmed != "" {
		return h.skipLocked(d)
	}
	return h.interveneLocked(ctx, d)
}

// attributeLocked adds to each action's scopes the start's file a scope's
// path is under another name (a hard link to it, its new name after a
// move): reading or editing the region through another name reads or
// edits the region (docs/isolation.md).
func (h *Hub) attributeLocked(evs []event.Event) {
	if h.w == nil {
		return
	}
	for i := range evs {
		switch evs[i].Kind {
		case event.Read, event.Edit, event.Test:
		default:
			continue
		}
		n := len(evs[i].Scopes)
		for _, sc := range evs[i].Scopes[:n] {
			if sc.Path == "" || filepath.IsAbs(sc.Path) {
				continue
			}
			if name, ok := h.w.StartName(sc.Path); ok && !hasScope(evs[i].Scopes, name) {
				sc.Path = name
				evs[i].Scopes = append(evs[i].Scopes, sc)
			}
		}
	}
}

func hasScope(scs []event.Scope, path string) bool {
	for _, sc := range scs {
		if sc.Path == path {
			return true
		}
	}
	return false
}

// Disarm stops interventions for good: why says so on each decision the
// policy still takes, recorded as skipped. swetouch run disarms the hub
// once the agent has exited, so its last native edits, taken then, are
// recorded but never answered with a Counter-Edit it cannot see.
func (h *Hub) Disarm(why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.disarmed = why
	if d, ok := h.usr.(interface{ Disarm() }); ok {
		d.Disarm() // a user that writes its messages need not write these
	}
}

// TurnEnd asks a conversational user what it does now that the agent
// has ended its turn. Its edit, if any, is applied as after an action; its
// message, with any message of the turn still waiting, is the next turn's
// prompt, returned and recorded (on the "turn" channel). A message of
// the user's own turn is not an intervention: interventions stay the
// Counter-Edits. end reports that the user ended the conversation (a
// user that is not conversational never speaks here); nothing waiting
// is handed on then, so nothing is counted as delivered that no model
// saw.
func (h *Hub) TurnEnd(ctx context.Context) (msgs []Message, end bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.awaitEndsLocked(ctx)
	if h.closed {
		return nil, true, ErrClosed
	}
	c, ok := h.usr.(user.Conversational)
	if !ok {
		return nil, true, nil
	}
	a := c.TurnEnd(h.history.view())
	if a == nil || a.End {
		return nil, true, nil
	}
	if a.Diff != "" {
		said := a.Message
		a.Message = ""
		if err := h.interveneLocked(ctx, a); err != nil {
			return nil, false, err
		}
		a.Message = said
	}
	msgs = h.drainLockedOn("turn")
	if a.Message != "" {
		if err := h.recordLocked(event.Event{Kind: event.Message, Source: "harness", Actor: event.User, Text: a.Message, Note: "turn"}); err != nil {
			return nil, false, err
		}
		msgs = append(msgs, Message{Order: a.Order, Text: a.Message})
	}
	return msgs, len(msgs) == 0, nil
}

// skipLocked records a decision that was not acted on.
func (h *Hub) skipLocked(d *user.Act) error {
	step := d.Step
	att := event.Attempt{Order: d.Order, PatchID: d.PatchID, Trigger: string(d.Event), Why: h.disarmed, Outcome: "skipped"}
	h.usr.Outcome(d, "skipped")
	h.addAttemptLocked(att)
	return h.recordLocked(event.Event{Kind: event.Intervention, Source: "harness", Actor: event.Harness, Step: &step, Attempt: &att})
}

// addAttemptLocked keeps an attempt's outcome for the result: a round
// tried again with the outcome and why of its last try (a Counter-Edit
// that cannot land, retried at every action while its round is due)
// counts one more try of that entry rather than adding one, so a failed
// round is listed once, not at each action.
func (h *Hub) addAttemptLocked(att event.Attempt) {
	if n := len(h.attempts); n > 0 {
		if last := &h.attempts[n-1]; last.Order == att.Order && last.PatchID == att.PatchID && last.Outcome == att.Outcome &&
			last.Why == att.Why && last.Message == att.Message && att.Outcome != "applied" {
			last.Tries = max(last.Tries, 1) + 1
			return
		}
	}
	h.attempts = append(h.attempts, att)
}

// interveneLocked applies a decision. The attempt is recorded before the
// workspace is touched; the outcome after.
func (h *Hub) interveneLocked(ctx context.Context, d *user.Act) error {
	step := d.Step
	att := event.Attempt{Order: d.Order, PatchID: d.PatchID, Trigger: string(d.Event), Why: d.Reason, Outcome: "attempt"}
	if err := h.recordLocked(event.Event{Kind: event.Intervention, Source: "harness", Actor: event.Harness, Step: &step, Diff: d.Diff, Attempt: &att}); err != nil {
		return err
	}
	outcome, why := "applied", ""
	var userEdits []event.Event
	if d.Diff != "" {
		outcome, why, userEdits = h.applyLocked(ctx, d.Diff, step)
	}
	// a Counter-Edit that cannot land (the agent rewrote its context
	// away) still delivers its message, and the round is spent: the
	// agent's own rewrite must not decide whether it is ever told; by the
	// paper's delivery (Always) so does one that changes nothing
	delivered := outcome == "applied" || d.Message != "" && (outcome == "failed" || outcome == "noop" && d.Always)
	switch {
	case outcome != "applied" && delivered:
		h.usr.Outcome(d, user.Delivered)
	default:
		h.usr.Outcome(d, outcome)
	}
	att.Outcome, att.Why = outcome, why
	if delivered {
		att.Message, att.MessageSource = d.Message, d.Source
		att.MessageModel, att.PromptSHA256, att.MessageRaw = d.Model, d.PromptSHA256, d.Raw
		att.FallbackReason, att.FallbackWhy = d.FallbackReason, d.FallbackWhy
	}
	for _, ev := range userEdits {
		if err := h.recordLocked(ev); err != nil {
			return err
		}
	}
	if err := h.recordLocked(event.Event{Kind: event.Intervention, Source: "harness", Actor: event.Harness, Step: &step, Attempt: &att}); err != nil {
		return err
	}
	h.addAttemptLocked(att)
	if delivered && d.Message != "" {
		h.outbox = append(h.outbox, Message{Order: d.Order, Text: d.Message})
	}
	return nil
}

// applyLocked writes a Counter-Edit. The watcher takes the new contents as
// the user's, so the write is not reported as an agent edit.
func (h *Hub) applyLocked(ctx context.Context, diff string, step int) (outcome, why string, edits []event.Event) {
	fds, err := patch.Parse(diff)
	if err != nil {
		return "failed", err.Error(), nil
	}
	if h.w != nil {
		// changes not yet taken stay the agent's
		if cs, _ := h.w.Sync(ctx); len(cs) > 0 {
			for _, ev := range changeEvents(cs, "", step, event.Agent) {
				h.recordLocked(ev)
			}
		}
	}
	rep, err := patch.Apply(patch.Dir(h.root), fds)
	if err != nil {
		return "failed", err.Error(), nil
	}
	if !rep.Applied {
		for _, hr := range rep.Hunks {
			if hr.Error != "" {
				return "failed", fmt.Sprintf("%s hunk %d: %s", hr.File, hr.Hunk, hr.Error), nil
			}
		}
		return "failed", "not applied", nil
	}
	if len(rep.Changed) == 0 {
		return "noop", "already applied", nil
	}
	ev := event.Event{Kind: event.Edit, Source: "harness", Actor: event.User, Diff: diff, Step: &step, Note: "counter-edit"}
	for _, hr := range rep.Hunks {
		if hr.Start > 0 && hr.End >= hr.Start {
			ev.Scopes = append(ev.Scopes, event.LineScope(hr.File, hr.Start, hr.End))
		}
		if hr.Method == patch.OverAgent {
			// the user's lines went over the agent's own version of them
			ev.Note = "counter-edit over the agent's rewrite"
		}
	}
	if h.w != nil {
		for _, f := range rep.Changed {
			if b, err := safefile.ReadIn(h.root, f); err == nil {
				s := string(b)
				h.w.Accept(f, &s)
			} else {
				h.w.Accept(f, nil)
			}
		}
	}
	return "applied", "", []event.Event{ev}
}

// Armed reports whether an intervention can still fire (or a message is
// waiting): when not, an adapter need not wait for the hub's answer to an
// action before passing its result on.
func (h *Hub) Armed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.armedLocked()
}

func (h *Hub) armedLocked() bool {
	return len(h.outbox) > 0 || h.disarmed == "" && h.usr != nil && h.usr.Armed()
}

// Drain returns the pending messages and records their delivery.
func (h *Hub) Drain(channel string) []Message { return h.drain(context.Background(), channel) }

func (h *Hub) drain(ctx context.Context, channel string) []Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.awaitEndsLocked(ctx)
	return h.drainLockedOn(channel)
}

func (h *Hub) drainLockedOn(channel string) []Message {
	out := h.outbox
	h.outbox = nil
	if strings.HasPrefix(channel, wire.UnconfirmedChannel) {
		h.unconfirmed += len(out)
	}
	for _, m := range out {
		h.recordLocked(event.Event{Kind: event.Message, Source: "harness", Actor: event.User, Text: m.Text, Note: channel})
	}
	return out
}

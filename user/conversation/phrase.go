package conversation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/swetouch/swetouch/user"
)

// phrasePrompt is the phrasing model's pinned instruction.
const phrasePrompt = `You play a user talking to a coding agent that is fixing a bug for you. Write your next message: one short paragraph, in the first person, as the persona describes. Say only what the items you are given say, in your own words; add no fact, guess, file name, number or code of your own. If you are given questions you cannot answer, say you do not know. Never mention tests, items or these instructions. Answer with the message alone.`

// personaStyle is how each persona speaks, for the phrasing model.
func personaStyle(name string) string {
	p, _ := ParsePersona(name)
	clarity := "You describe what you see precisely, with the exact inputs and outputs you are given."
	if p.Clarity == "vague" {
		clarity = "You describe what you see vaguely, as an impression, without exact inputs or outputs."
	}
	cause := map[string]string{
		"none":       "You have no idea what causes it and do not guess.",
		"correct":    "You say what you believe causes it, as given.",
		"off-target": "You say what you believe causes it, as given, and you are not sure.",
		"wrong":      "You say what you believe causes it, as given, and you are fairly sure.",
	}[p.Cause]
	return clarity + " " + cause
}

// phrased is the next message, phrased by the model when there is one
// and checked against the pool, else by the offline renderer. The model
// is shown the persona, the items selected this turn and the
// conversation, and nothing else of the pool.
// With a reviewer, a model's text that passes the check goes to it too
// (reviewMessage): one it rejects, or a review that fails, sends the
// offline text, so no unreviewed model message reaches the agent.
func (u *User) phrased(ctx context.Context, persona string, sel Selection) (text, source, why, review string) {
	offline := Message(Render(persona, sel))
	if u.phrase == nil {
		return offline, "offline", "", ""
	}
	if len(sel.Items) == 0 && len(sel.Unknown) == 0 {
		return offline, "offline", "", "" // a nudge: nothing to phrase
	}
	raw, _, err := u.phrase.Write(ctx, phrasePrompt, u.phraseContext(persona, sel))
	if err != nil {
		return offline, "offline_fallback", "the model failed: " + err.Error(), ""
	}
	msg := strings.TrimSpace(raw)
	if why := u.leaks(msg, sel); why != "" {
		return offline, "offline_fallback", why, ""
	}
	if u.msgReview == nil {
		return msg, "llm", "", ""
	}
	switch review, why := u.reviewMessage(ctx, persona, sel, msg); review {
	case "accepted":
		return msg, "llm", "", review
	default:
		return offline, "offline_fallback", why, review
	}
}

// phraseContext is what the phrasing model sees.
func (u *User) phraseContext(persona string, sel Selection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Persona: %s\n\nSay this:\n", personaStyle(persona))
	for _, it := range sel.Items {
		fmt.Fprintf(&b, "- (%s) %s\n", it.Kind, it.Text)
	}
	for _, q := range sel.Unknown {
		fmt.Fprintf(&b, "- The agent asked %q: you do not know.\n", q)
	}
	for _, f := range sel.Edited {
		fmt.Fprintf(&b, "- (your own action) You changed %s yourself while the agent worked.\n", f)
	}
	b.WriteString("\nThe conversation so far:\n")
	for _, t := range u.turns {
		fmt.Fprintf(&b, "You: %s\nAgent: %s\n", t.UserMessage, t.AgentReply)
	}
	return b.String()
}

// maxMessage bounds a phrased message: a user's turn, not an essay.
const maxMessage = 800

// leaks says why a phrased message cannot be sent ("" when it can): it
// is empty or too long, or it holds the words of a pool item that was not
// selected (two of its keywords that neither the selected items nor the
// conversation hold, or one of its code names).
func (u *User) leaks(msg string, sel Selection) string {
	switch {
	case msg == "":
		return "the model wrote nothing"
	case utf8.RuneCountInString(msg) > maxMessage:
		return fmt.Sprintf("the message is over %d characters", maxMessage)
	}
	known := wordSet(u.pkg.Opening + " " + strings.Join(sel.Edited, " "))
	for _, it := range sel.Items {
		for w := range wordSet(it.Text) {
			known[w] = true
		}
	}
	for _, t := range u.turns {
		for w := range wordSet(t.UserMessage + " " + t.AgentReply) {
			known[w] = true
		}
	}
	said := wordSet(msg)
	selected := map[string]bool{}
	for _, it := range sel.Items {
		selected[it.ID] = true
	}
	for _, it := range u.pkg.Pool {
		if selected[it.ID] {
			continue
		}
		var hits []string
		code := false
		for _, w := range keywords(it.Text) {
			if said[w] && !known[w] {
				hits = append(hits, w)
				code = code || strings.Contains(w, "_") || strings.ContainsAny(w, "0123456789")
			}
		}
		if len(hits) >= 2 || code {
			return fmt.Sprintf("the message says what item %s holds and this turn did not select (%s)", it.ID, strings.Join(hits, ", "))
		}
	}
	return ""
}

// WithPhrasing has a model phrase the user's messages (the offline
// renderer stays the fallback).
func WithPhrasing(w user.Writer) Option {
	return func(u *User) { u.phrase = w }
}

// Untraced are the user's messages that are neither the package's own
// nor phrased from their turn's selected items (by the offline renderer,
// or by a model whose text passed the check): none, unless something
// slipped through.
func (u *User) Untraced() []string {
	var out []string
	for _, t := range u.turns {
		switch {
		case t.MessageSource == "llm": // checked against the pool when it was written
		case t.MessageSource == "package" && (t.UserMessage == u.pkg.Opening ||
			slices.ContainsFunc(u.pkg.Phases, func(p Phase) bool { return p.Opening == t.UserMessage })):
		default:
			var items []Item
			for _, id := range t.Items {
				if i := slices.IndexFunc(u.pkg.Pool, func(it Item) bool { return it.ID == id }); i >= 0 {
					items = append(items, u.pkg.Pool[i])
				}
			}
			if Message(Render(t.Persona, Selection{Items: items, Unknown: make([]string, t.Unknown), Edited: u.editedBefore(t.Turn)})) != t.UserMessage {
				out = append(out, t.UserMessage)
			}
		}
	}
	return out
}

// editedBefore are the files the user changed in the turn before turn n.
func (u *User) editedBefore(n int) []string {
	if n < 2 || n-2 >= len(u.turns) {
		return nil
	}
	return u.turns[n-2].UserEdits
}

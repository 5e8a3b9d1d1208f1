package user

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/swetouch/swetouch/event"
)

// Contextual is SWE-Touch's user with its messages written by a model
// from what the agent has just done (m_j = User(H_t, p⁻, j)): the region
// user's decisions, with each message from the Writer through a quality
// filter, and the region user's deterministic text when the call fails
// or the text breaks a rule. Every message says where it came from.
type Contextual struct {
	*Region
	w        Writer
	task     string
	timeout  time.Duration
	disarmed bool
}

// Disarm stops the writing: the hub calls it once the agent is gone, when
// a decision can only be recorded as skipped and no message will be read.
func (c *Contextual) Disarm() { c.disarmed = true }

// NewContextual is the contextual user over a region user's decisions;
// task is the instruction the agent was given.
func NewContextual(r *Region, w Writer, task string) *Contextual {
	return &Contextual{Region: r, w: w, task: task, timeout: callTimeout}
}

// Fallback reasons.
const (
	LLMFailed        = "llm_failed"
	LLMQualityFailed = "llm_quality_failed"
)

func (c *Contextual) Act(h History, action []event.Event) *Act {
	a := c.Region.Act(h, action)
	if a == nil || a.Message == "" || c.disarmed {
		return a
	}
	ctxt := Context{Task: c.task, Round: a.Order, Region: regionText(a), Edit: a.Diff, Claim: a.Intent}
	seen := actions(h.Events())
	if n := len(seen); n > 0 {
		ctxt.Trigger = &seen[n-1]
		ctxt.Recent = seen[max(0, n-1-recentLimit) : n-1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	text, model, err := c.w.Write(ctx, systemPrompt, ctxt.render())
	a.Model, a.PromptSHA256, a.Raw = model, PromptSHA256, text
	switch {
	case err != nil:
		a.Source, a.FallbackReason, a.FallbackWhy = "deterministic_fallback", LLMFailed, err.Error()
	default:
		if why := quality(text); why != "" {
			a.Source, a.FallbackReason, a.FallbackWhy = "deterministic_fallback", LLMQualityFailed, why
		} else {
			a.Source, a.Message = "llm", strings.TrimSpace(text)
		}
	}
	return a
}

func regionText(a *Act) string {
	if a.Region.StartLine > 0 {
		return fmt.Sprintf("%s:%d-%d", a.Region.Path, a.Region.StartLine, a.Region.EndLine)
	}
	return a.Region.Path
}

// banned are what the user's message must never say: that it is
// simulated, what it is part of, what it was not shown.
var banned = []string{"benchmark", "swe-bench", "swe-touch", "hidden test", "simulat", "evaluation", "system prompt", "gold patch", "counter-edit", "as an ai", "language model"}

// roundTalk is the prompt's bookkeeping leaking: "round 2", "stage 3".
var roundTalk = regexp.MustCompile(`\b(round|stage) \d`)

// hedges are apologies and hedging the message must not have.
var hedges = []string{"sorry", "apologi", "i'm not sure", "i am not sure", "i think", "perhaps", "maybe", "it might be"}

// sentenceEnd ends a sentence: . ! or ? before a space or the end.
var sentenceEnd = regexp.MustCompile(`[.!?]+(\s|$)`)

// quality says why a model's message breaks the user's rules, or "".
func quality(text string) string {
	t := strings.TrimSpace(text)
	low := strings.ToLower(t)
	switch {
	case t == "":
		return "empty"
	case strings.HasPrefix(t, "#") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.Contains(t, "\n- ") || strings.Contains(t, "\n* "):
		return "a list or heading"
	case strings.Contains(t, "```") || strings.Contains(low, "diff --git") || strings.Contains(t, "\n+") || strings.Contains(t, "\n-"):
		return "code or a diff"
	}
	for _, w := range banned {
		if strings.Contains(low, w) {
			return fmt.Sprintf("says %q", w)
		}
	}
	if m := roundTalk.FindString(low); m != "" {
		return fmt.Sprintf("says %q", m)
	}
	for _, w := range hedges {
		if strings.Contains(low, w) {
			return fmt.Sprintf("hedges (%q)", w)
		}
	}
	if n := len(sentenceEnd.FindAllStringIndex(t, -1)); n < 2 || n > 4 {
		return fmt.Sprintf("%d sentences, not 2 to 4", n)
	}
	return ""
}

package user

import (
	"strings"
	"testing"
)

// TestQuality: the rules a written message must keep, each with a reply
// that breaks it, and replies that keep them all (words such as "around"
// that hold a banned one are not taken for it).
func TestQuality(t *testing.T) {
	for _, tt := range []struct{ text, why string }{
		{"I clamped the percent myself. Please keep it and work around it.", ""},
		{"Keep my clamp in pricing.py! I checked it against the totals. Build the rest on it.", ""},
		{"", "empty"},
		{"Keep it.", "1 sentences, not 2 to 4"},
		{"One. Two. Three. Four. Five.", "5 sentences, not 2 to 4"},
		{"Keep it. Here:\n```\nx = 1\n```", "code or a diff"},
		{"Keep it. See diff --git a/x b/x for it.", "code or a diff"},
		{"- keep it\n- build on it", "a list or heading"},
		{"As a simulated user I changed it. Keep it.", `says "simulat"`},
		{"This benchmark needs it. Keep it.", `says "benchmark"`},
		{"In round 2 I restored it. Keep it.", `says "round 2"`},
		{"Sorry to interrupt. Keep my change.", `hedges ("sorry")`},
		{"I think my change is right. Keep it.", `hedges ("i think")`},
	} {
		if got := quality(tt.text); got != tt.why {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.why)
		}
	}
}

// TestPromptSaysWhatIsKnown: the rendered context holds the task, the
// edit, the claim and the agent's last command; a message-only round
// says no edit was made.
func TestPromptSaysWhatIsKnown(t *testing.T) {
	exit := 0
	c := Context{Task: "Fix apply_discount.", Round: 1, Region: "pricing.py:4-6", Edit: "+    percent = min(percent, 100)", Claim: "Clamp, do not raise.",
		Trigger: &Action{Command: "sed -n 4,6p pricing.py", What: "read pricing.py:4-6", Exit: &exit, Output: "def apply_discount"}}
	got := c.render()
	for _, want := range []string{"Fix apply_discount.", "percent = min(percent, 100)", "Clamp, do not raise.", "sed -n 4,6p pricing.py", "already in the repository"} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, got)
		}
	}
	c.Edit = ""
	if got := c.render(); strings.Contains(got, "already in the repository") || !strings.Contains(got, "not changed the code") {
		t.Errorf("a message-only round's prompt:\n%s", got)
	}
}

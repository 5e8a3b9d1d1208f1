package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
)

// rewrite is the agent's function rewritten whole, its docstring and the
// line the Counter-Edit's context needs gone, so the edit cannot land.
const rewrite = `"""Prices for the shop."""


def apply_discount(price, percent):
    if not 0 <= percent <= 100:
        raise ValueError(percent)
    return price * (100 - percent) / 100


def total(prices, percent=0):
    """Sum prices, each discounted by percent."""
    return sum(apply_discount(p, percent) for p in prices)
`

// TestFailedLandingDelivers: a Counter-Edit that cannot land (the agent
// read the region by a command the classifier does not know, then
// rewrote the function whole) still delivers its message after the
// command that triggered it; the attempt is recorded as failed, with why,
// and the message it delivered; the round is spent (no later edit brings
// it back), and the hub counts it delivered, not applied. Before, nothing
// was delivered and the round waited for a landing that never came.
func TestFailedLandingDelivers(t *testing.T) {
	l := start(t, policy.CounterEdit)
	p := filepath.Join(l.ws, "pricing.py")
	if err := os.WriteFile(filepath.Join(l.ws, "new.py"), []byte(rewrite), 0o644); err != nil {
		t.Fatal(err)
	}
	out := l.sh(t, "mv new.py pricing.py")
	if !strings.Contains(out, "<user-message>") || !strings.Contains(out, "clamped") {
		t.Fatalf("no message after the rewrite:\n%s\n%+v", out, l.events(t))
	}
	if b, _ := os.ReadFile(p); string(b) != rewrite {
		t.Fatalf("the agent's rewrite was changed:\n%s", b)
	}
	l.sh(t, "echo '# more' >> pricing.py")
	var attempts []event.Attempt
	for _, ev := range l.events(t) {
		if ev.Kind == event.Intervention && ev.Attempt.Outcome != "attempt" {
			attempts = append(attempts, *ev.Attempt)
		}
	}
	if len(attempts) != 1 {
		t.Fatalf("attempts %+v, want the one, spent", attempts)
	}
	if a := attempts[0]; a.Outcome != "failed" || a.Why == "" || !strings.Contains(a.Message, "clamped") {
		t.Errorf("the attempt %+v: want failed, why, and the message delivered", a)
	}
	if applied, delivered := l.hub.Status().Counts(); applied != 0 || delivered != 1 {
		t.Errorf("applied %d, delivered %d; want 0 and 1", applied, delivered)
	}
}

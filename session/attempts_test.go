package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
)

// TestFailedRoundListedOnce: a Counter-Edit with no message to deliver
// (code-only) that cannot land stays due and is tried again at each of
// the agent's actions; the trajectory keeps every try, and the result's
// list of interventions holds the round once, with its tries counted.
// Before, result.json listed the same failed round at every action.
func TestFailedRoundListedOnce(t *testing.T) {
	l := start(t, policy.CodeOnly)
	if err := os.WriteFile(filepath.Join(l.ws, "new.py"), []byte(rewrite), 0o644); err != nil {
		t.Fatal(err)
	}
	l.sh(t, "mv new.py pricing.py")
	l.sh(t, "cat pricing.py")
	l.sh(t, "echo '# more' >> pricing.py")
	tries := 0
	for _, ev := range l.events(t) {
		if ev.Kind == event.Intervention && ev.Attempt.Outcome == "failed" {
			tries++
		}
	}
	if tries < 2 {
		t.Fatalf("%d failed tries in the trajectory; the test needs the round retried", tries)
	}
	got := l.hub.Status().Interventions
	if len(got) != 1 || got[0].Outcome != "failed" || got[0].Why == "" || got[0].Tries != tries {
		t.Errorf("interventions %+v: want the failed round once, with its %d tries", got, tries)
	}
}

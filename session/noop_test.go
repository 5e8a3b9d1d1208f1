package session_test

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// threeRounds makes the example's record K=3 as the released Verified
// records are: one edit reapplied, rounds 2 and 3 on an edit.
func threeRounds(rec *task.Record) {
	iv := rec.CounterEdit.Interventions[0]
	for order := 2; order <= 3; order++ {
		next := iv
		next.Order, next.Trigger.Event = order, "edit"
		rec.CounterEdit.Interventions = append(rec.CounterEdit.Interventions, next)
	}
	rec.CounterEdit.MaxInterventions = 3
}

// TestNoopDelivery: round 2 fires on an edit of the region's file (the
// reference match) that leaves the user's lines in place, so reapplying
// the Counter-Edit changes nothing. By the paper's delivery (the default)
// the message still goes, the attempt is recorded as noop with it, and
// the round is spent (the next edit fires round 3); by --delivery retry
// nothing goes and round 2 stays due.
func TestNoopDelivery(t *testing.T) {
	for _, tt := range []struct {
		delivery  policy.Delivery
		message   bool
		orders    string // the orders of the attempts after the first, with their outcomes
		delivered int
	}{
		{policy.Always, true, "2:noop+message 3:noop+message", 3},
		{policy.Retry, false, "2:noop 2:noop", 1},
	} {
		t.Run(string(tt.delivery), func(t *testing.T) {
			l := startWith(t, user.Options{Condition: policy.CounterEdit, Delivery: tt.delivery}, threeRounds)
			if out := l.sh(t, "nl -ba pricing.py | sed -n 4,6p"); !strings.Contains(out, "<user-message>") {
				t.Fatalf("round 1 did not fire:\n%s", out)
			}
			out := l.sh(t, "echo '# more' >> pricing.py")
			if got := strings.Contains(out, "<user-message>"); got != tt.message {
				t.Errorf("after an edit that leaves the user's lines: message %v, want %v:\n%s", got, tt.message, out)
			}
			l.sh(t, "echo '# again' >> pricing.py")
			var got []string
			for _, ev := range l.events(t) {
				if ev.Kind != event.Intervention || ev.Attempt.Outcome == "attempt" || ev.Attempt.Order == 1 {
					continue
				}
				s := ev.Attempt.Outcome
				if ev.Attempt.Message != "" {
					s += "+message"
				}
				got = append(got, string(rune('0'+ev.Attempt.Order))+":"+s)
			}
			if strings.Join(got, " ") != tt.orders {
				t.Errorf("attempts %v, want %s", got, tt.orders)
			}
			if _, delivered := l.hub.Status().Counts(); delivered != tt.delivered {
				t.Errorf("delivered %d, want %d", delivered, tt.delivered)
			}
		})
	}
}

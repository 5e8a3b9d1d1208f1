package replay

import (
	"testing"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/trajectory"
)

// TestDoing: each step's first agent action, its time from the session's
// first timed event; a native action by its tool, else its kind; the
// user's events are not the agent's doing.
func TestDoing(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := func(n int) *int { return &n }
	rec := &trajectory.Trajectory{Events: []event.Event{
		{Actor: event.User, Step: step(0), Command: "not the agent's", Time: t0},
		{Actor: event.Agent, Step: step(0), Command: "cat a.py", Time: t0.Add(1500 * time.Millisecond)},
		{Actor: event.Agent, Step: step(0), Command: "the second of step 0", Time: t0.Add(2 * time.Second)},
		{Actor: event.Agent, Step: step(1), Tool: "Edit", Kind: event.Edit},
		{Actor: event.Agent, Step: step(2), Kind: event.Read},
		{Actor: event.Agent, Command: "no step"},
	}}
	got := Doing(rec)
	want := map[int]string{0: "+1.5s  cat a.py", 1: "native Edit", 2: "native read"}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("step %d: %q, want %q", k, got[k], v)
		}
	}
}

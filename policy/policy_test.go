package policy

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/task"
)

func record() *task.Record {
	regions := []task.Region{{Path: "src/a.py", StartLine: 10, EndLine: 20}}
	p := &task.Patch{ID: "p1", Diff: "diff --git a/src/a.py b/src/a.py\n", UserClaim: "Keep the cache"}
	return &task.Record{InstanceID: "x__y-1", CounterEdit: task.CounterEdit{Mode: "patch", MaxInterventions: 3, Interventions: []task.Intervention{
		{Order: 1, Delivery: "patch_and_message", Trigger: task.Trigger{Event: "read_or_edit", Regions: regions}, Patch: p},
		{Order: 2, Delivery: "patch_and_message", Trigger: task.Trigger{Event: "edit", Regions: regions}, Patch: p},
		{Order: 3, Delivery: "patch_and_message", Trigger: task.Trigger{Event: "edit", Regions: regions}, Patch: p},
	}}}
}

func ev(step int, k event.Kind, scopes ...event.Scope) []event.Event {
	return []event.Event{{Kind: k, Step: &step, Actor: event.Agent, Scopes: scopes}}
}

func TestKInterventions(t *testing.T) {
	p, err := New(record())
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		events  []event.Event
		outcome string
		want    int // order fired, 0 none
	}{
		{ev(0, event.Read, event.LineScope("src/a.py", 1, 5)), "", 0},
		{ev(1, event.Read, event.LineScope("src/a.py", 18, 30)), "applied", 1},
		{ev(2, event.Read, event.FileScope("src/a.py")), "", 0}, // reads never fire later rounds
		{ev(3, event.Edit, event.FileScope("src/a.py")), "noop", 2},
		{ev(4, event.Edit, event.FileScope("src/b.py")), "", 0},
		{ev(5, event.Edit, event.FileScope("src/a.py")), "applied", 2}, // a failed attempt consumed nothing
		{ev(6, event.Test), "", 0},
		{ev(7, event.Edit, event.LineScope("src/a.py", 12, 12)), "applied", 3},
		{ev(8, event.Edit, event.FileScope("src/a.py")), "", 0}, // budget used up
	}
	for i, s := range steps {
		d := p.Decide(s.events)
		got := 0
		if d != nil {
			got = d.Order
			p.Outcome(d, s.outcome)
		}
		if got != s.want {
			t.Fatalf("step %d: fired %d, want %d", i, got, s.want)
		}
	}
}

func TestOnePerAction(t *testing.T) {
	p, _ := New(record())
	step := 0
	evs := []event.Event{
		{Kind: event.Read, Step: &step, Scopes: []event.Scope{event.FileScope("src/a.py")}},
		{Kind: event.Edit, Step: &step, Scopes: []event.Scope{event.FileScope("src/a.py")}},
	}
	d := p.Decide(evs)
	if d == nil || d.Order != 1 || d.Event != event.Read {
		t.Fatalf("%+v", d)
	}
}

func TestConditions(t *testing.T) {
	read := ev(0, event.Read, event.FileScope("src/a.py"))
	for _, c := range []struct {
		cond          Condition
		diff, message bool
	}{
		{Vanilla, false, false},
		{CounterEdit, true, true},
		{MessageOnly, false, true},
		{CodeOnly, true, false},
	} {
		p, _ := New(record(), WithCondition(c.cond))
		d := p.Decide(read)
		if c.cond == Vanilla {
			if d != nil {
				t.Errorf("vanilla decided %+v", d)
			}
			continue
		}
		if d == nil || (d.Diff != "") != c.diff || (d.Message != "") != c.message {
			t.Errorf("%s: %+v", c.cond, d)
		}
	}
}

func TestPreciseTracksRegions(t *testing.T) {
	p, _ := New(record(), WithMatch(Precise))
	// the agent inserts 5 lines at the top: the region moves to 15-25
	step := 0
	edit := event.Event{Kind: event.Edit, Step: &step, Scopes: []event.Scope{event.LineScope("src/a.py", 1, 5)},
		Diff: "--- a/src/a.py\n+++ b/src/a.py\n@@ -0,0 +1,5 @@\n+1\n+2\n+3\n+4\n+5\n"}
	if d := p.Decide([]event.Event{edit}); d != nil {
		t.Fatalf("edit above the region fired: %+v", d)
	}
	if d := p.Decide(ev(1, event.Read, event.LineScope("src/a.py", 11, 14))); d != nil {
		t.Errorf("read of the region's old lines fired after it moved: %+v", d)
	}
	if d := p.Decide(ev(2, event.Read, event.LineScope("src/a.py", 24, 24))); d == nil {
		t.Error("read of the moved region did not fire")
	}
	ref, _ := New(record(), WithMatch(Reference))
	ref.Decide([]event.Event{edit})
	if d := ref.Decide(ev(1, event.Read, event.LineScope("src/a.py", 11, 14))); d == nil {
		t.Error("reference mode should keep static regions")
	}
}

func TestFractionSchedule(t *testing.T) {
	p, _ := New(record(), WithSchedule(Schedule{Kind: "fraction", Steps: 40}))
	var fired []int
	for s := 0; s < 40; s++ {
		if d := p.Decide(ev(s, event.Run)); d != nil {
			fired = append(fired, s)
			p.Outcome(d, "applied")
		}
	}
	if len(fired) != 3 || fired[0] != 10 || fired[1] != 20 || fired[2] != 30 {
		t.Errorf("fired at %v, want [10 20 30]", fired)
	}
}

func TestMessageDeterministicAndEscalates(t *testing.T) {
	r := task.Region{Path: "a.py", StartLine: 1, EndLine: 3}
	m1, m2, m3 := Message("Keep it", 1, r, false), Message("Keep it", 2, r, false), Message("Keep it", 3, r, false)
	if m1 != Message("Keep it", 1, r, false) || m1 == m2 || m2 == m3 {
		t.Error("messages not deterministic or not escalating")
	}
}

// TestMessageOnlyNeverClaimsAnEdit: under message-only nothing is
// applied, so no round's message may say the user edited or restored
// anything (the released harness's B13).
func TestMessageOnlyNeverClaimsAnEdit(t *testing.T) {
	r := task.Region{Path: "a.py", StartLine: 1, EndLine: 3}
	for order := 1; order <= 4; order++ {
		m := strings.ToLower(MessageNoEdit("Keep the cache warm", order, r))
		for _, claim := range []string{"edited", "restored", "my version", "my change", "put "} {
			if strings.Contains(m, claim) {
				t.Errorf("round %d says %q: %s", order, claim, m)
			}
		}
	}
	p, _ := New(record(), WithCondition(MessageOnly))
	d := p.Decide(ev(1, event.Read, event.LineScope("src/a.py", 11, 14)))
	if d == nil || d.Diff != "" || d.Message != MessageNoEdit(d.Seed, d.Order, d.Region) {
		t.Errorf("message-only decision %+v", d)
	}
}

// TestDeliveredSpendsTheRound: a round whose edit failed to land but
// whose message went is spent, as an applied one is; one that failed
// with nothing delivered stays due.
func TestDeliveredSpendsTheRound(t *testing.T) {
	p, _ := New(record())
	read := ev(0, event.Read, event.FileScope("src/a.py"))
	d := p.Decide(read)
	p.Outcome(d, "failed")
	if d = p.Decide(read); d == nil || d.Order != 1 {
		t.Fatalf("after a failure with nothing delivered: %+v, want round 1 again", d)
	}
	p.Outcome(d, Delivered)
	if d = p.Decide(ev(1, event.Edit, event.FileScope("src/a.py"))); d == nil || d.Order != 2 {
		t.Fatalf("after round 1 delivered: %+v, want round 2", d)
	}
}

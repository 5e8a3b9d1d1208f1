package policy

import (
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/task"
)

// TestCoEditOnEdit: the paper delivers the Co-Edit once the agent has
// changed its region: with CoEditOnEdit a read of the region (which the
// record's read_or_edit trigger takes) does not fire it, an edit does;
// with the record's trigger the read does.
func TestCoEditOnEdit(t *testing.T) {
	rec := record()
	rec.Controls.HelpfulEdit = &task.HelpfulEdit{Mode: "patch", MaxInterventions: 1, TriggerEvent: "read_or_edit",
		TargetRegions: []task.Region{{Path: "src/a.py", StartLine: 10, EndLine: 20}}}
	read, edit := ev(1, event.Read, event.LineScope("src/a.py", 12, 14)), ev(2, event.Edit, event.LineScope("src/a.py", 12, 12))
	for _, tt := range []struct {
		trigger        string
		onRead, onEdit bool
	}{
		{"", true, false}, // the record's: the read fires, nothing is left for the edit
		{CoEditOnEdit, false, true},
	} {
		p, err := New(rec, WithCondition(CoEdit), WithCoEditTrigger(tt.trigger))
		if err != nil {
			t.Fatal(err)
		}
		d := p.Decide(read)
		if (d != nil) != tt.onRead {
			t.Errorf("trigger %q: the read fired %v", tt.trigger, d != nil)
		}
		if d != nil {
			p.Outcome(d, "applied")
		}
		if d := p.Decide(edit); (d != nil) != tt.onEdit {
			t.Errorf("trigger %q: the edit fired %v", tt.trigger, d != nil)
		}
	}
}

// TestDeliveryRule: a decision says whether its message goes when the
// edit changes nothing: by default (the paper's) it does.
func TestDeliveryRule(t *testing.T) {
	for _, tt := range []struct {
		name   string
		always bool
	}{{"", true}, {"always", true}, {"retry", false}} {
		d, err := ParseDelivery(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := New(record(), WithDelivery(d))
		dec := p.Decide(ev(0, event.Read, event.LineScope("src/a.py", 12, 12)))
		if dec == nil || dec.Always != tt.always {
			t.Errorf("delivery %q: decision %+v, want Always %v", tt.name, dec, tt.always)
		}
		p.Outcome(dec, Delivered)
		if p.Interventions()[0].Done != true {
			t.Errorf("delivery %q: a delivered round is not spent", tt.name)
		}
	}
	if _, err := ParseDelivery("sometimes"); err == nil {
		t.Error("an unknown delivery was taken")
	}
}

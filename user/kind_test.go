package user

import (
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// talker is a conversational user that only counts its turn ends.
type talker struct{ ends int }

func (t *talker) Act(History, []event.Event) *Act { return nil }
func (t *talker) Outcome(*Act, string)            {}
func (t *talker) Armed() bool                     { return true }
func (t *talker) TurnEnd(History) *Act            { t.ends++; return &Act{End: true} }

// TestBuild: a run's user is its kinds made in order. A region user with
// a conversation over it is labelled with the region's condition and
// talks at each turn's end; a contextual user needs a region user below
// it, and the region user comes first.
func TestBuild(t *testing.T) {
	recs, err := task.LoadRecords("../examples/tasks/py-discount/records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	region := RegionKind{Record: recs[0], Options: Options{Condition: policy.MessageOnly}}
	tk := &talker{}
	u, err := Build(region, ConversationKind{Talker: tk})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := u.(Conversational)
	if !ok {
		t.Fatalf("%T talks at no turn's end", u)
	}
	if c.TurnEnd(Events(nil)); tk.ends != 1 {
		t.Error("the conversation was not asked at the turn's end")
	}
	r, err := Build(region)
	if l, ok := r.(Labelled); err != nil || !ok || l.Condition() != policy.MessageOnly {
		t.Errorf("the region user: %v, %T", err, r)
	}
	if u, err := Build(ConversationKind{Talker: tk}); err != nil || u != User(tk) {
		t.Errorf("a conversation alone: %v, %T", err, u)
	}
	for _, bad := range [][]Kind{{ContextualKind{}}, {region, region}, {ConversationKind{Talker: tk}, ContextualKind{}}} {
		if _, err := Build(bad...); err == nil {
			t.Errorf("%T built", bad)
		}
	}
	if u, err := Build(); u != nil || err != nil {
		t.Errorf("no kinds: %v, %v", u, err)
	}
}

package user

import (
	"fmt"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// Region is SWE-Touch's user: it touches the code when the agent reaches
// a task-critical region (or on the schedule it is given), with the
// record's Counter-Edit and its deterministic message, under one of the
// benchmark's conditions. The decisions are the policy package's.
type Region struct {
	pol  *policy.Policy
	cond policy.Condition
	mtch policy.Match
}

// Options of a Region user; the zero value is counter-edit, reference
// matching, the record's own triggers.
type Options struct {
	Condition policy.Condition
	Match     policy.Match
	Schedule  policy.Schedule
	// Delivery is what a round whose edit changes nothing does ("": the
	// paper's, policy.Always); CoEditTrigger the Co-Edit's trigger event
	// ("": the record's; policy.CoEditOnEdit is the paper's).
	Delivery      policy.Delivery
	CoEditTrigger string
}

// NewRegion is the region user of a record.
func NewRegion(rec *task.Record, o Options) (*Region, error) {
	if o.Condition == "" {
		o.Condition = policy.CounterEdit
	}
	if o.Match == "" {
		o.Match = policy.Reference
	}
	if err := checkSchedule(o.Schedule); err != nil {
		return nil, err
	}
	p, err := policy.New(rec, policy.WithCondition(o.Condition), policy.WithMatch(o.Match), policy.WithSchedule(o.Schedule),
		policy.WithDelivery(o.Delivery), policy.WithCoEditTrigger(o.CoEditTrigger))
	if err != nil {
		return nil, err
	}
	return &Region{pol: p, cond: o.Condition, mtch: o.Match}, nil
}

// Condition and Match are what the user runs under.
func (r *Region) Condition() policy.Condition { return r.cond }
func (r *Region) Match() policy.Match         { return r.mtch }

// Policy is the policy the user consults (read it, do not drive it).
func (r *Region) Policy() *policy.Policy { return r.pol }

func (r *Region) Act(_ History, action []event.Event) *Act {
	d := r.pol.Decide(action)
	if d == nil {
		return nil
	}
	a := &Act{Order: d.Order, Diff: d.Diff, PatchID: d.PatchID, Message: d.Message, Region: d.Region, Event: d.Event, Step: d.Step, Scope: d.Scope, Reason: d.Reason, Intent: d.Seed, Always: d.Always}
	if a.Message != "" {
		a.Source = "seed"
	}
	return a
}

func (r *Region) Outcome(a *Act, outcome string) {
	r.pol.Outcome(&policy.Decision{Order: a.Order}, outcome)
}

func (r *Region) Armed() bool { return r.pol.Armed() }

// Schedules are the ways a region user's rounds become due.
var Schedules = []string{"region", "fraction", "after"}

// ParseSchedule reads --schedule: region (the record's triggers),
// fraction (round i of K at the first step ≥ ⌈i·S/(K+1)⌉ of a reference
// run of S steps: steps, which eval takes from the paired vanilla run),
// or after (the first round at step n, later ones on new edits).
func ParseSchedule(kind string, steps, n int) (policy.Schedule, error) {
	s := policy.Schedule{Kind: kind, Steps: steps, N: n}
	if kind == "" || kind == "region" {
		s.Kind = ""
	}
	return s, checkSchedule(s)
}

func checkSchedule(s policy.Schedule) error {
	switch s.Kind {
	case "", "region":
		return nil
	case "fraction":
		if s.Steps <= 0 {
			return fmt.Errorf("schedule fraction needs the reference run's step count (> 0), got %d", s.Steps)
		}
		return nil
	case "after":
		if s.N < 0 {
			return fmt.Errorf("schedule after needs a step (≥ 0), got %d", s.N)
		}
		return nil
	}
	return fmt.Errorf("schedule: want region, fraction or after, got %q", s.Kind)
}

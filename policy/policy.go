package policy

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/task"
)

// Condition is an experimental condition.
type Condition string

// Conditions.
const (
	Vanilla     Condition = "vanilla"      // observe only
	CounterEdit Condition = "counter-edit" // the user edit and its message
	CoEdit      Condition = "co-edit"      // the record's helpful edit instead
	MessageOnly Condition = "message-only" // the message, no edit
	CodeOnly    Condition = "code-only"    // the edit, no message
	// ClearCorrect is UserSWE's ablation (U17): no Counter-Edit, and a
	// conversation's user precise with the correct cause every turn.
	ClearCorrect Condition = "clear-correct"
)

// ParseCondition checks a condition name.
func ParseCondition(s string) (Condition, error) {
	switch c := Condition(s); c {
	case Vanilla, CounterEdit, CoEdit, MessageOnly, CodeOnly, ClearCorrect:
		return c, nil
	}
	return "", fmt.Errorf("unknown condition %q (want vanilla, counter-edit, co-edit, message-only, code-only or clear-correct)", s)
}

// Acts reports whether the user touches the code under the condition:
// every condition but vanilla (and the zero one) and clear-correct.
func (c Condition) Acts() bool { return c != "" && c != Vanilla && c != ClearCorrect }

// NeedsRecord reports whether the condition acts from a record: every
// condition but vanilla (and the zero one, which is vanilla's). Run
// without one, it would be vanilla under another name.
func (c Condition) NeedsRecord() bool { return c.Acts() }

// Match is how events are matched against trigger regions.
type Match string

// Match modes.
const (
	// Reference reproduces the released harness: static base-commit
	// regions; an event without lines on a region's file matches.
	Reference Match = "reference"
	// Precise tracks regions through edits (they move when lines are
	// inserted or removed above them) and clamps them at the end of file.
	Precise Match = "precise"
)

// ParseMatch checks a match mode name.
func ParseMatch(s string) (Match, error) {
	switch m := Match(s); m {
	case Reference, Precise:
		return m, nil
	}
	return "", fmt.Errorf("unknown match mode %q (want reference or precise)", s)
}

// Delivery says what becomes of a round whose Counter-Edit changes
// nothing.
type Delivery string

// Deliveries.
const (
	// Always is the paper's rule: the user's message goes whatever became
	// of the edit (it landed, it could not land, it changed nothing), the
	// outcome recorded as it was, and the round is spent.
	Always Delivery = "always"
	// Retry is swetouch's earlier rule, the released harness's exit 43:
	// an edit that changes nothing sends no message and leaves its round
	// due (one that cannot land still sends its message).
	Retry Delivery = "retry"
)

// ParseDelivery checks a delivery name ("" is Always).
func ParseDelivery(s string) (Delivery, error) {
	switch d := Delivery(s); d {
	case "":
		return Always, nil
	case Always, Retry:
		return d, nil
	}
	return "", fmt.Errorf("unknown delivery %q (want always or retry)", s)
}

// CoEditOnEdit is the Co-Edit's trigger by the paper: the helpful edit
// comes once the agent has changed the region (WithCoEditTrigger).
const CoEditOnEdit = "edit"

// Schedule says when interventions become due.
type Schedule struct {
	// Kind is "region" (the record's triggers; the default), "fraction"
	// (intervention i at step ⌈i·Steps/(K+1)⌉ of a reference run of Steps
	// steps) or "after" (the first at step N, later ones on new edits of
	// the region).
	Kind  string
	Steps int
	N     int
}

// Option configures a Policy.
type Option func(*Policy)

// WithCondition sets the condition (default counter-edit).
func WithCondition(c Condition) Option { return func(p *Policy) { p.cond = c } }

// WithMatch sets the match mode (default reference).
func WithMatch(m Match) Option { return func(p *Policy) { p.match = m } }

// WithDelivery sets the delivery rule (default Always, the paper's).
func WithDelivery(d Delivery) Option { return func(p *Policy) { p.delivery = d } }

// WithCoEditTrigger sets the Co-Edit's trigger event in place of the
// record's helpful_edit.trigger_event ("": the record's): CoEditOnEdit is
// the paper's.
func WithCoEditTrigger(event string) Option { return func(p *Policy) { p.coEditEvent = event } }

// WithSchedule sets the schedule.
func WithSchedule(s Schedule) Option { return func(p *Policy) { p.sched = s } }

// WithLineCount tells the policy how long a file is now, for clamping
// regions in precise mode.
func WithLineCount(f func(path string) (int, bool)) Option {
	return func(p *Policy) { p.lineCount = f }
}

// Intervention is one planned intervention and its state.
type Intervention struct {
	Order   int
	Event   string // read, edit, read_or_edit
	Regions []task.Region
	Diff    string // "" for message only
	PatchID string
	Seed    string
	Done    bool
	// Attempts counts tries that failed or changed nothing.
	Attempts int
}

// Decision is what the policy asks the hub to do for one action.
type Decision struct {
	Order   int
	Diff    string // the Counter-Edit to apply; "" for none
	PatchID string
	Message string // "" when no message is sent
	Region  task.Region
	Event   event.Kind
	Step    int
	Scope   event.Scope
	Reason  string
	Seed    string // what the user claims for the edit
	// Always: the message goes, and the round is spent, even when the
	// edit changes nothing (Delivery Always).
	Always bool
}

// Policy holds the decision state of one run.
type Policy struct {
	rec       *task.Record
	cond      Condition
	match     Match
	sched     Schedule
	lineCount func(string) (int, bool)
	ivs       []*Intervention
	delivery  Delivery
	// coEditEvent overrides the helpful edit's trigger ("": the record's)
	coEditEvent string
}

// New plans the record's interventions under the options.
func New(rec *task.Record, opts ...Option) (*Policy, error) {
	p := &Policy{rec: rec, cond: CounterEdit, match: Reference, sched: Schedule{Kind: "region"}, delivery: Always}
	for _, o := range opts {
		o(p)
	}
	if p.sched.Kind == "" {
		p.sched.Kind = "region"
	}
	switch p.sched.Kind {
	case "region":
	case "fraction":
		if p.sched.Steps <= 0 {
			return nil, fmt.Errorf("fraction schedule needs the reference run's step count")
		}
	case "after":
		if p.sched.N < 0 {
			return nil, fmt.Errorf("after schedule needs a step >= 0")
		}
	default:
		return nil, fmt.Errorf("unknown schedule %q (want region, fraction or after)", p.sched.Kind)
	}
	if p.cond == CoEdit {
		he := rec.Controls.HelpfulEdit
		if he == nil {
			return nil, fmt.Errorf("%s: no helpful edit for the co-edit condition", rec.InstanceID)
		}
		iv := &Intervention{Order: 1, Event: orDefault(p.coEditEvent, orDefault(he.TriggerEvent, "read_or_edit")), Regions: slices.Clone(he.TargetRegions), Seed: helpfulSeed}
		if len(iv.Regions) == 0 {
			iv.Regions = slices.Clone(rec.TaskCriticalRegions)
		}
		if he.Patch != nil {
			iv.Diff, iv.PatchID = he.Patch.Diff, he.Patch.ID
		}
		p.ivs = []*Intervention{iv}
		return p, nil
	}
	for _, riv := range rec.CounterEdit.Interventions {
		iv := &Intervention{Order: riv.Order, Event: riv.Trigger.Event, Regions: slices.Clone(riv.Trigger.Regions), Seed: genericSeed}
		if riv.Patch != nil {
			iv.Diff, iv.PatchID = riv.Patch.Diff, riv.Patch.ID
			if riv.Patch.UserClaim != "" {
				iv.Seed = riv.Patch.UserClaim
			}
		}
		p.ivs = append(p.ivs, iv)
	}
	return p, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Interventions returns the plan and its state.
func (p *Policy) Interventions() []*Intervention { return p.ivs }

// Armed reports whether any decision can still come: the condition acts
// and an intervention is not done. Adapters skip waiting for the hub when
// nothing can.
func (p *Policy) Armed() bool { return p.cond.Acts() && p.next() != nil }

// next is the lowest-order intervention not yet done: rounds fire in order.
func (p *Policy) next() *Intervention {
	for _, iv := range p.ivs {
		if !iv.Done {
			return iv
		}
	}
	return nil
}

// Decide looks at the events of one agent action, in order, and returns at
// most one decision. Edit events move tracked regions (precise mode) even
// when nothing fires.
func (p *Policy) Decide(events []event.Event) *Decision {
	var d *Decision
	for _, ev := range events {
		if d == nil && p.cond.Acts() {
			d = p.consider(ev)
		}
		p.track(ev)
	}
	return d
}

func (p *Policy) consider(ev event.Event) *Decision {
	if ev.Actor == event.User || ev.Actor == event.Harness || ev.Note == "submission" {
		return nil // never touch after the agent's last chance to react
	}
	iv := p.next()
	if iv == nil {
		return nil
	}
	step := 0
	if ev.Step != nil {
		step = *ev.Step
	}
	switch p.sched.Kind {
	case "fraction":
		k := len(p.ivs)
		due := int(math.Ceil(float64(iv.Order*p.sched.Steps) / float64(k+1)))
		if ev.Step == nil || step < due {
			return nil
		}
		return p.decide(iv, ev, task.Region{}, event.Scope{}, fmt.Sprintf("step %d ≥ %d = ⌈%d·%d/%d⌉", step, due, iv.Order, p.sched.Steps, k+1))
	case "after":
		if iv.Order == 1 {
			if ev.Step == nil || step < p.sched.N {
				return nil
			}
			return p.decide(iv, ev, task.Region{}, event.Scope{}, fmt.Sprintf("step %d ≥ %d", step, p.sched.N))
		}
	}
	kinds := map[string][]event.Kind{
		"read":         {event.Read},
		"edit":         {event.Edit},
		"read_or_edit": {event.Read, event.Edit},
	}[iv.Event]
	if iv.Order > 1 || p.sched.Kind == "after" {
		kinds = []event.Kind{event.Edit} // later rounds need a new edit
	}
	ok := false
	for _, k := range kinds {
		ok = ok || ev.Kind == k
	}
	if !ok {
		return nil
	}
	for _, sc := range ev.Scopes {
		for _, r := range iv.Regions {
			if cur, hit := p.overlap(r, sc, ev.Kind); hit {
				return p.decide(iv, ev, cur, sc, fmt.Sprintf("%s of %s overlaps %s", ev.Kind, sc, cur))
			}
		}
	}
	return nil
}

func (p *Policy) decide(iv *Intervention, ev event.Event, r task.Region, sc event.Scope, why string) *Decision {
	d := &Decision{Order: iv.Order, PatchID: iv.PatchID, Region: r, Event: ev.Kind, Scope: sc, Reason: why, Seed: iv.Seed, Always: p.delivery != Retry}
	if ev.Step != nil {
		d.Step = *ev.Step
	}
	if r.Path == "" && len(iv.Regions) > 0 {
		d.Region = iv.Regions[0]
	}
	if p.cond != MessageOnly {
		d.Diff = iv.Diff
	}
	switch {
	case p.cond == MessageOnly:
		d.Message = MessageNoEdit(iv.Seed, iv.Order, d.Region)
	case p.cond != CodeOnly:
		d.Message = Message(iv.Seed, iv.Order, d.Region, p.cond == CoEdit)
	}
	if d.Diff == "" && d.Message == "" {
		return nil
	}
	return d
}

// Delivered is the outcome of a decision whose edit failed to land or
// changed nothing but whose message was delivered.
const Delivered = "delivered"

// Outcome reports what became of a decision: "applied" and "delivered"
// (the edit failed to land or changed nothing, its message went) consume
// the intervention; "noop" (the edit changed nothing, no message went)
// and "failed" (nothing went) consume nothing, and the intervention stays
// due.
func (p *Policy) Outcome(d *Decision, outcome string) {
	for _, iv := range p.ivs {
		if iv.Order != d.Order {
			continue
		}
		if outcome == "applied" || outcome == Delivered {
			iv.Done = true
		} else {
			iv.Attempts++
		}
	}
}

// overlap matches an event scope against a region (as it stands now).
func (p *Policy) overlap(r task.Region, sc event.Scope, k event.Kind) (task.Region, bool) {
	if cleanPath(sc.Path) != cleanPath(r.Path) {
		return r, false
	}
	if p.match == Precise && p.lineCount != nil {
		if n, ok := p.lineCount(r.Path); ok && r.EndLine > n {
			r.EndLine = max(n, r.StartLine)
		}
	}
	if p.match == Reference && sc.Precision == event.Line && !sc.Overlaps(r.StartLine, r.EndLine) {
		// the released harness never gives edits a span: any edit of the
		// region's file matches
		return r, k == event.Edit
	}
	return r, sc.Overlaps(r.StartLine, r.EndLine)
}

func cleanPath(s string) string {
	s = strings.TrimPrefix(s, "/testbed/")
	if s == "" {
		return ""
	}
	return path.Clean(s)
}

// track moves regions through an edit's diff in precise mode: lines
// inserted or removed above a region shift it; a change inside stretches
// or shrinks it.
func (p *Policy) track(ev event.Event) {
	if p.match != Precise || ev.Kind != event.Edit || ev.Diff == "" {
		return
	}
	shifts := hunkShifts(ev.Diff)
	for _, iv := range p.ivs {
		for i, r := range iv.Regions {
			iv.Regions[i] = shiftRegion(r, shifts[cleanPath(r.Path)])
		}
	}
}

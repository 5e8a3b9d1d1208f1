package policy

import "github.com/swetouch/swetouch/event"

// Firing is one intervention that fired while replaying a recorded run.
type Firing struct {
	Order int    `json:"order"`
	Step  int    `json:"step"`
	Event string `json:"event"`
	Path  string `json:"path,omitempty"`
	Start int    `json:"start,omitempty"`
	End   int    `json:"end,omitempty"`
}

// Simulate feeds a recorded run's events to p one agent action at a time
// (events sharing step, action and command) and assumes every attempt
// applies. It answers "where would the interventions have fired" without
// touching a workspace; a live run can differ once the agent reacts.
func Simulate(p *Policy, evs []event.Event) []Firing {
	fired := []Firing{}
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && sameAction(evs[i], evs[j]) {
			j++
		}
		if d := p.Decide(evs[i:j]); d != nil {
			p.Outcome(d, "applied")
			fired = append(fired, Firing{d.Order, d.Step, string(d.Event), d.Region.Path, d.Region.StartLine, d.Region.EndLine})
		}
		i = j
	}
	return fired
}

func sameAction(a, b event.Event) bool {
	return a.Step != nil && b.Step != nil && *a.Step == *b.Step && a.Action == b.Action && a.Command == b.Command
}

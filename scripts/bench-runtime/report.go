package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// results collects what a run measured: the detail lines people read,
// and the figures each target is checked by, beside its floor and budget.
type results struct {
	out  io.Writer // the detail lines
	figs []figure
}

// figure is one target's measurement in one run.
type figure struct {
	Target  string  `json:"target"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`               // µs, ms, ×
	Floor   float64 `json:"floor,omitempty"`    // what the same work costs without swetouch, same unit
	FloorIs string  `json:"floor_is,omitempty"` // what the floor is
	Budget  float64 `json:"budget"`
	AtLeast bool    `json:"at_least,omitempty"` // the value must reach the budget, not stay under it
	Runs    int     `json:"runs"`               // paired samples behind the value
	// Info marks a figure kept beside the targets with no budget of its
	// own (it explains one): neither met nor not
	Info     bool   `json:"info,omitempty"`
	Met      bool   `json:"met"`
	Measured string `json:"measured"` // when, UTC
}

func (r *results) say(format string, args ...any) { fmt.Fprintf(r.out, format+"\n", args...) }

// target records a figure; met is decided here, the same way for all.
func (r *results) target(f figure) {
	f.Met = !f.Info && f.Value <= f.Budget
	if f.AtLeast {
		f.Met = f.Value >= f.Budget
	}
	f.Measured = time.Now().UTC().Format(time.RFC3339)
	r.figs = append(r.figs, f)
}

// table prints every target beside its floor and budget.
func (r *results) table(w io.Writer) {
	fmt.Fprintf(w, "\n%-46s %10s %10s %10s  %s\n", "target", "measured", "floor", "budget", "")
	for _, f := range r.figs {
		floor := "-"
		if f.FloorIs != "" {
			floor = fmt.Sprintf("%.4g %s", f.Floor, f.Unit)
		}
		cmp := "≤"
		if f.AtLeast {
			cmp = "≥"
		}
		verdict, budget := "met", fmt.Sprintf("%s %.4g", cmp, f.Budget)
		switch {
		case f.Info:
			verdict, budget = "for reference", "-"
		case !f.Met:
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "%-46s %10s %10s %10s  %s (%d runs)\n", f.Target, fmt.Sprintf("%.4g %s", f.Value, f.Unit), floor,
			budget, verdict, f.Runs)
	}
}

func (r *results) json(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.figs)
}

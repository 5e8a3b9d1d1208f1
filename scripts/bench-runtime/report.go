package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// results collects what a run measured: the detail lines people read,
// and the figures each target is checked by, beside its floor and budget.
type results struct {
	out  io.Writer // the detail lines
	run  int       // which of -runs this is, from 1 (0: the only one)
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
	Info bool `json:"info,omitempty"`
	// SetAt is the budget as the target set it, where Budget was held
	// at a floor's ratio instead (rebase); HeldBy names that floor
	SetAt  float64 `json:"budget_as_set,omitempty"`
	HeldBy string  `json:"budget_held_by,omitempty"`
	Met    bool    `json:"met"`
	// NotMeasured says why a part measured nothing for this target (its
	// server or the sandbox missing here): the target is listed all the
	// same, so that a run's table and record never read as complete
	// when a part was skipped
	NotMeasured string `json:"not_measured,omitempty"`
	Measured    string `json:"measured"`      // when, UTC
	Run         int    `json:"run,omitempty"` // which of -runs measured it, from 1
}

// rebase holds f's budget, set beside a floor that measured setFloor,
// at that floor's ratio on a machine where the floor measures floor
// instead: a target the floor alone comes near on a slower machine is
// below what that machine allows (the runtime issue's rule). On a
// machine as quick as the one it was set on, or quicker, the budget
// stands as set.
func (f figure) rebase(setFloor, floor float64, floorIs string) figure {
	if floor <= setFloor {
		return f
	}
	f.SetAt, f.HeldBy = f.Budget, floorIs
	f.Budget *= floor / setFloor
	return f
}

// heldByWrapper sets a command's ratio to direct beside the asking C
// wrapper's ratio, measured in the same turns: where the wrapper alone
// comes near the budget, the budget is held at the shim's own budget
// against that wrapper (1.2× what it adds), as the shim's part holds
// its own.
func (f figure) heldByWrapper(wrapper float64) figure {
	f.Floor, f.FloorIs = wrapper, "the asking C wrapper"
	if held := 1 + 1.2*(wrapper-1); held > f.Budget {
		f.SetAt, f.HeldBy, f.Budget = f.Budget, fmt.Sprintf("the asking C wrapper, 1.2× what its %.3f adds", wrapper), held
	}
	return f
}

// heldNote says, for a budget held at a floor's ratio, what it was set at.
func (f figure) heldNote() string {
	if f.SetAt == 0 {
		return ""
	}
	return fmt.Sprintf("; set at %.4g %s, held at the ratio of %s", f.SetAt, f.Unit, f.HeldBy)
}

func (r *results) say(format string, args ...any) { fmt.Fprintf(r.out, format+"\n", args...) }

// target records a figure; met is decided here, the same way for all.
func (r *results) target(f figure) {
	f.Met = !f.Info && f.Value <= f.Budget
	if f.AtLeast {
		f.Met = f.Value >= f.Budget
	}
	f.Measured = time.Now().UTC().Format(time.RFC3339)
	f.Run = r.run
	r.figs = append(r.figs, f)
}

// notMeasured records each of targets as not measured in this run, for
// why (said in the detail lines too).
func (r *results) notMeasured(why string, targets ...string) {
	for _, t := range targets {
		r.figs = append(r.figs, figure{Target: t, NotMeasured: why, Measured: time.Now().UTC().Format(time.RFC3339), Run: r.run})
	}
}

// table prints every target beside its floor and budget.
func (r *results) table(w io.Writer) {
	fmt.Fprintf(w, "\n%-46s %10s %10s %10s  %s\n", "target", "measured", "floor", "budget", "")
	for _, f := range r.figs {
		if f.NotMeasured != "" {
			fmt.Fprintf(w, "%-46s %10s %10s %10s  NOT measured (%s)\n", f.Target, "-", "-", "-", f.NotMeasured)
			continue
		}
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
		fmt.Fprintf(w, "%-46s %10s %10s %10s  %s (%d runs%s)\n", f.Target, fmt.Sprintf("%.4g %s", f.Value, f.Unit), floor,
			budget, verdict, f.Runs, f.heldNote())
	}
}

func writeJSON(w io.Writer, figs []figure) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(figs)
}

// summary prints, for each target, what several runs measured: the
// lowest, the median and the highest value, and in how many runs it was
// met. On this project's machines one run's figures move by tens of
// percent from the next's; a figure is its range over runs.
func summary(w io.Writer, figs []figure) {
	var order []string
	byTarget := map[string][]figure{}
	for _, f := range figs {
		if _, ok := byTarget[f.Target]; !ok {
			order = append(order, f.Target)
		}
		byTarget[f.Target] = append(byTarget[f.Target], f)
	}
	fmt.Fprintf(w, "\n%-46s %10s %10s %10s %10s  %s\n", "target, over runs", "lowest", "median", "highest", "budget", "")
	for _, t := range order {
		all := byTarget[t]
		var fs []figure
		var why string
		for _, f := range all {
			if f.NotMeasured != "" {
				why = f.NotMeasured
				continue
			}
			fs = append(fs, f)
		}
		if len(fs) == 0 {
			fmt.Fprintf(w, "%-46s %10s %10s %10s %10s  NOT measured in %d of %d runs (%s)\n", t, "-", "-", "-", "-", len(all), len(all), why)
			continue
		}
		skipped := ""
		if n := len(all) - len(fs); n > 0 {
			skipped = fmt.Sprintf("; NOT measured in %d (%s)", n, why)
		}
		vals := make([]float64, len(fs))
		met := 0
		for i, f := range fs {
			vals[i] = f.Value
			if f.Met {
				met++
			}
		}
		slices.Sort(vals)
		f := fs[0]
		cmp := "≤"
		if f.AtLeast {
			cmp = "≥"
		}
		verdict, budget := fmt.Sprintf("met in %d of %d runs", met, len(all)), fmt.Sprintf("%s %.4g", cmp, f.Budget)
		if f.Info {
			verdict, budget = fmt.Sprintf("for reference (%d runs)", len(fs)), "-"
		}
		if held, h := heldRange(fs); held != "" {
			budget, verdict = cmp+" "+held, verdict+h.heldNote()
		}
		verdict += skipped
		v := func(x float64) string { return fmt.Sprintf("%.4g %s", x, f.Unit) }
		fmt.Fprintf(w, "%-46s %10s %10s %10s %10s  %s\n", t, v(vals[0]), v(middle(vals)), v(vals[len(vals)-1]), budget, verdict)
	}
}

// heldRange is the range of a target's budgets over runs when any run
// held it at a floor's ratio (each run's floor holds its own), "" when
// none did; and a run that held it.
func heldRange(fs []figure) (string, figure) {
	var held figure
	lo, hi := fs[0].Budget, fs[0].Budget
	for _, f := range fs {
		if f.SetAt != 0 {
			held = f
		}
		lo, hi = min(lo, f.Budget), max(hi, f.Budget)
	}
	switch {
	case held.SetAt == 0:
		return "", held
	case lo == hi:
		return fmt.Sprintf("%.4g", lo), held
	}
	return fmt.Sprintf("%.3g-%.3g", lo, hi), held
}

// middle is the median of sorted values.
func middle(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

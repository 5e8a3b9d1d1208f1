package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// A budget set beside a quicker floor is held at that floor's ratio, and
// only then: met is decided against the budget held, and the report says
// what the budget was set at.
func TestRebase(t *testing.T) {
	tests := []struct {
		name            string
		value, floor    float64
		wantBudget      float64
		wantMet, wantAt bool
	}{
		{"a floor as quick as where it was set", 70, 38, 60, false, false},
		{"a quicker floor leaves the budget", 50, 20, 60, true, false},
		{"a slower floor holds it at the ratio", 170, 152, 240, true, true},
		{"held, and still not met", 250, 152, 240, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &results{out: &bytes.Buffer{}}
			r.target(figure{Target: "x", Value: tt.value, Unit: "µs", Budget: 60}.rebase(38, tt.floor, "the floor"))
			f := r.figs[0]
			if f.Budget != tt.wantBudget || f.Met != tt.wantMet || (f.SetAt != 0) != tt.wantAt {
				t.Fatalf("budget %v met %v set at %v; want %v %v held %v", f.Budget, f.Met, f.SetAt, tt.wantBudget, tt.wantMet, tt.wantAt)
			}
			var table bytes.Buffer
			r.table(&table)
			if got := strings.Contains(table.String(), "set at 60 µs, held at the ratio of the floor"); got != tt.wantAt {
				t.Fatalf("the table says the budget was held: %v, want %v:\n%s", got, tt.wantAt, table.String())
			}
		})
	}
}

// Over runs, a held budget is shown as the range each run's floor held
// it at, with what it was set at, even when the first run did not hold it.
func TestSummaryHeldRange(t *testing.T) {
	r := &results{out: &bytes.Buffer{}}
	for _, floor := range []float64{30, 76, 57} {
		r.target(figure{Target: "x", Value: 100, Unit: "µs", Budget: 60}.rebase(38, floor, "the floor"))
	}
	var out bytes.Buffer
	summary(&out, r.figs)
	for _, want := range []string{"≤ 60-120", "met in 1 of 3 runs; set at 60 µs, held at the ratio of the floor"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// grep's 1.03 is held only where the asking wrapper alone comes near it:
// at 1.2× what the wrapper adds, as the shim's budget against it.
func TestHeldByWrapper(t *testing.T) {
	tests := []struct {
		name             string
		value, wrapper   float64
		wantBudget       float64
		wantMet, wantSet bool
	}{
		{"a wrapper well under the budget", 1.029, 1.018, 1.03, true, false},
		{"the shim over 1.03 there", 1.031, 1.018, 1.03, false, false},
		{"a wrapper near the budget holds it", 1.037, 1.032, 1.0384, true, true},
		{"held, and still not met", 1.042, 1.032, 1.0384, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &results{out: &bytes.Buffer{}}
			r.target(figure{Target: "grep", Value: tt.value, Unit: "×", Budget: 1.03}.heldByWrapper(tt.wrapper))
			f := r.figs[0]
			if math.Abs(f.Budget-tt.wantBudget) > 1e-9 || f.Met != tt.wantMet || (f.SetAt != 0) != tt.wantSet || f.Floor != tt.wrapper {
				t.Fatalf("budget %v met %v set at %v floor %v; want %v %v held %v", f.Budget, f.Met, f.SetAt, f.Floor, tt.wantBudget, tt.wantMet, tt.wantSet)
			}
		})
	}
}

// A part that could not run (its server or the sandbox missing) still
// lists its targets: as not measured, with why, in the table, the
// summary and the JSON record, never as met, and never counted as a
// measured run beside the runs that did measure it.
func TestNotMeasured(t *testing.T) {
	first := &results{out: &bytes.Buffer{}, run: 1}
	first.target(figure{Target: "measured", Value: 1.2, Unit: "×", Budget: 1.5})
	first.notMeasured("bwrap not found", "sandboxed", "skipped twice")
	second := &results{out: &bytes.Buffer{}, run: 2}
	second.target(figure{Target: "measured", Value: 1.4, Unit: "×", Budget: 1.5})
	second.target(figure{Target: "sandboxed", Value: 1.1, Unit: "×", Budget: 1.2})
	second.notMeasured("bwrap not found", "skipped twice")

	for _, f := range first.figs[1:] {
		if f.Met || f.NotMeasured != "bwrap not found" || f.Run != 1 {
			t.Errorf("%s: met %v, not measured %q, run %d", f.Target, f.Met, f.NotMeasured, f.Run)
		}
	}
	var table bytes.Buffer
	first.table(&table)
	for _, want := range []string{"sandboxed", "NOT measured (bwrap not found)"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var sum bytes.Buffer
	summary(&sum, append(first.figs, second.figs...))
	lines := map[string]string{}
	for _, l := range strings.Split(sum.String(), "\n") {
		if name, _, ok := strings.Cut(l, "  "); ok {
			lines[name] = l
		}
	}
	for target, want := range map[string]string{
		"measured":      "met in 2 of 2 runs",
		"sandboxed":     "met in 1 of 2 runs; NOT measured in 1 (bwrap not found)",
		"skipped twice": "NOT measured in 2 of 2 runs (bwrap not found)",
	} {
		if !strings.Contains(lines[target], want) {
			t.Errorf("summary of %q lacks %q:\n%s", target, want, sum.String())
		}
	}
	// the lowest and highest of "sandboxed" are its one measured value
	if strings.Count(lines["sandboxed"], "1.1 ×") != 3 || strings.Contains(lines["sandboxed"], " 0 ×") {
		t.Errorf("a run not measured moved the range:\n%s", lines["sandboxed"])
	}
	var js bytes.Buffer
	if err := writeJSON(&js, first.figs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"not_measured": "bwrap not found"`) {
		t.Errorf("the JSON record does not say what was not measured:\n%s", js.String())
	}
}

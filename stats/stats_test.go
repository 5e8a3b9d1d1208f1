package stats

import (
	"math"
	"testing"
)

// TestPairedPermutationKnown: p-values worked by hand from every sign
// assignment.
func TestPairedPermutationKnown(t *testing.T) {
	for _, c := range []struct {
		diffs []float64
		p     float64
	}{
		{[]float64{1, 1, 1, 1, 1}, 2.0 / 32}, // only all + and all − reach 5
		{[]float64{1, 2, 3}, 2.0 / 8},        // ±6 of ±1±2±3
		{[]float64{1, -1}, 1},                // every assignment is as far
		{[]float64{0.5, 0.25, 0.25, 0}, 4.0 / 16},
		{nil, 1},
	} {
		got := PairedPermutation(c.diffs, Config{})
		if math.Abs(got.P-c.p) > 1e-12 || (len(c.diffs) > 0 && !got.Exact) {
			t.Errorf("%v: p %v (exact %v), want %v", c.diffs, got.P, got.Exact, c.p)
		}
	}
}

// TestPairedPermutationMonteCarlo: above the exact limit the estimate
// stays within sampling error of the exact p, and the same seed gives the
// same p.
func TestPairedPermutationMonteCarlo(t *testing.T) {
	diffs := []float64{0.4, 0.1, 0.3, -0.2, 0.5, 0.0, 0.2, 0.1, -0.1, 0.3, 0.2, 0.4, 0.1, -0.3, 0.2, 0.1, 0.25, 0.05}
	exact := PairedPermutation(diffs, Config{ExactUpTo: 20})
	mc := PairedPermutation(diffs, Config{ExactUpTo: 8, Resamples: 40000, Seed: 3})
	if !exact.Exact || mc.Exact {
		t.Fatalf("exact %v, mc %v", exact.Exact, mc.Exact)
	}
	se := math.Sqrt(exact.P * (1 - exact.P) / 40000)
	if math.Abs(mc.P-exact.P) > 4*se+1.0/40001 {
		t.Errorf("Monte Carlo p %v, exact %v (se %v)", mc.P, exact.P, se)
	}
	if again := PairedPermutation(diffs, Config{ExactUpTo: 8, Resamples: 40000, Seed: 3}); again.P != mc.P {
		t.Errorf("not deterministic: %v then %v", mc.P, again.P)
	}
}

// TestBH: the adjustment against values from R's p.adjust(p, "BH").
func TestBH(t *testing.T) {
	for _, c := range []struct{ p, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{[]float64{0.05, 0.05, 0.05}, []float64{0.05, 0.05, 0.05}},
		{[]float64{0.9, 0.001}, []float64{0.9, 0.002}},
		{[]float64{0.6, 0.7, 0.8}, []float64{0.8, 0.8, 0.8}},
	} {
		got := BH(c.p)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("BH(%v) = %v, want %v", c.p, got, c.want)
				break
			}
		}
	}
	if s := Separated([]float64{0.02, 0.04, 0.06}, 0.05); !s[0] || !s[1] || s[2] {
		t.Errorf("separated %v", s)
	}
}

// TestBootstrapTasks: the interval resamples tasks, not trials: one task
// solved in all four of its runs and one failed in its one run give an
// interval over the whole range, where pooling the five trials would
// claim a narrow one; and twenty tasks half solved give the binomial's
// quantiles.
func TestBootstrapTasks(t *testing.T) {
	perTask := []float64{1, 0} // each task's mean over its runs
	if iv := Bootstrap(2, MeanOf(perTask), Config{}); iv.Lo != 0 || iv.Hi != 1 {
		t.Errorf("two tasks: %+v", iv)
	}
	half := make([]float64, 20)
	for i := range 10 {
		half[i] = 1
	}
	iv := Bootstrap(20, MeanOf(half), Config{Resamples: 20000})
	// Binomial(20, ½)/20: the 2.5% quantile is 6/20, the 97.5% 14/20
	if math.Abs(iv.Lo-0.30) > 0.05+1e-9 || math.Abs(iv.Hi-0.70) > 0.05+1e-9 {
		t.Errorf("twenty tasks: %+v", iv)
	}
	if again := Bootstrap(20, MeanOf(half), Config{Resamples: 20000}); again != iv {
		t.Errorf("not deterministic: %+v then %+v", iv, again)
	}
	if one := Bootstrap(1, MeanOf([]float64{0.5}), Config{}); one.Lo != 0.5 || one.Hi != 0.5 {
		t.Errorf("one task: %+v", one)
	}
}

// TestBootstrapMean: the one-pass mean draws what Bootstrap with MeanOf
// draws.
func TestBootstrapMean(t *testing.T) {
	v := []float64{0, 0.5, 1, 1, 0.25, 0, 1}
	c := Config{Resamples: 3000, Seed: 9}
	if a, b := BootstrapMean(v, c), Bootstrap(len(v), MeanOf(v), c); a != b {
		t.Errorf("BootstrapMean %+v, Bootstrap %+v", a, b)
	}
}

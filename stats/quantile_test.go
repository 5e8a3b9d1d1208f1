package stats

import (
	"slices"
	"testing"
)

// TestQuantileAsGonum: quantile gives what gonum's stat.Quantile with
// stat.Empirical and no weights gave (values computed with gonum v0.17.0
// before it left go.mod), on ties, one value, and the edge quantiles.
func TestQuantileAsGonum(t *testing.T) {
	ps := []float64{0, 0.001, 0.025, 0.1, 0.25, 1.0 / 3, 0.5, 0.75, 0.9, 0.975, 0.999, 1}
	forty := make([]float64, 40)
	for i := range forty {
		forty[i] = float64(i+1) / 10
	}
	forty[2] = 0.30000000000000004
	for _, c := range []struct{ xs, want []float64 }{
		{[]float64{5}, []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}},
		{[]float64{1, 2}, []float64{1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2}},
		{[]float64{1, 2, 3}, []float64{1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3}},
		{[]float64{0, 0, 0, 1}, []float64{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}},
		{[]float64{1, 1, 2, 2, 2, 3}, []float64{1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 3}},
		{[]float64{-3, -1, 0, 0, 0.5, 0.5, 0.5, 2, 7, 7}, []float64{-3, -3, -3, -3, 0, 0, 0.5, 2, 7, 7, 7, 7}},
		{forty, []float64{0.1, 0.1, 0.1, 0.4, 1, 1.4, 2, 3, 3.6, 3.9, 4, 4}},
	} {
		for i, p := range ps {
			if got := quantile(p, c.xs); got != c.want[i] {
				t.Errorf("quantile(%v, %v) = %v, gonum gave %v", p, c.xs, got, c.want[i])
			}
		}
	}
	// the interval's two quantiles at the resample counts used, where
	// p·n lands on or beside an integer
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{{40, 0, 38}, {1000, 24, 974}, {2000, 49, 1949}, {4000, 99, 3899}, {10000, 249, 9749}, {10001, 250, 9750}} {
		xs := make([]float64, c.n)
		for i := range xs {
			xs[i] = float64(i)
		}
		if lo, hi := quantile(0.025, xs), quantile(0.975, xs); lo != c.lo || hi != c.hi {
			t.Errorf("n=%d: %v %v, gonum gave %v %v", c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestBootstrapAsGonum: the intervals BootstrapMean printed with gonum's
// quantile, to the last bit.
func TestBootstrapAsGonum(t *testing.T) {
	v := []float64{0, 0.5, 1, 1, 0.25, 0, 1, 0.75, 0.125, 0.3}
	for _, c := range []struct {
		c    Config
		want Interval
	}{
		{Config{}, Interval{0.25999999999999995, 0.7424999999999999}},
		{Config{Resamples: 999, Seed: 7}, Interval{0.26749999999999996, 0.755}},
		{Config{Resamples: 40, Seed: 3}, Interval{0.2425, 0.6525}},
	} {
		if got := BootstrapMean(slices.Clone(v), c.c); got != c.want {
			t.Errorf("%+v: %+v, gonum gave %+v", c.c, got, c.want)
		}
	}
}

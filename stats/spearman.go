package stats

import (
	"math"
	"sort"
)

// Spearman is Spearman's rank correlation ρ of x and y: Pearson's
// correlation of their ranks, tied values sharing the mean of their
// ranks (so ties need no correction term). ok is false with fewer than
// three pairs, unequal lengths, or a side whose values are all equal,
// where ρ is undefined. SWE-Touch relates each model's revision rate to
// its resolve-rate drop this way across a handful of models.
func Spearman(x, y []float64) (rho float64, ok bool) {
	if len(x) != len(y) || len(x) < 3 {
		return 0, false
	}
	return pearson(Ranks(x), Ranks(y))
}

// Ranks are the 1-based ranks of xs in ascending order, ties given the
// mean of the ranks they span.
func Ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

func pearson(x, y []float64) (float64, bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

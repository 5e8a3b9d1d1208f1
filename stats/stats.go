// Package stats is the uncertainty behind every figure swetouch prints:
// a bootstrap that resamples tasks (runs stay inside their task: trials
// of one task are not independent), paired permutation tests on per-task
// differences, and the Benjamini–Hochberg adjustment across a family of
// tests. Everything is deterministic for a seed.
package stats

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
)

// Config is how many resamples a bootstrap or a Monte Carlo permutation
// test draws, and from which seed. The zero value is DefaultConfig.
type Config struct {
	Resamples int
	Seed      uint64
	// ExactUpTo is the most tasks a permutation test enumerates every
	// sign assignment of (2^n); above it, Resamples are drawn.
	ExactUpTo int
}

// DefaultConfig: 10,000 resamples, seed 1, exact up to 16 tasks.
var DefaultConfig = Config{Resamples: 10000, Seed: 1, ExactUpTo: 16}

// OrDefault is c with DefaultConfig's value in every field left zero.
func (c Config) OrDefault() Config {
	if c.Resamples <= 0 {
		c.Resamples = DefaultConfig.Resamples
	}
	if c.ExactUpTo <= 0 {
		c.ExactUpTo = DefaultConfig.ExactUpTo
	}
	if c.Seed == 0 {
		c.Seed = DefaultConfig.Seed
	}
	return c
}

// source is the resampling's random numbers: splitmix64, seeded from
// the config. It is a tenth of the cost of math/rand's generators per
// draw, and the draws are most of a bootstrap's time.
type source struct{ s uint64 }

func (r *source) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// IntN is a draw from [0, n): the high word of a 64×64 product (its bias
// is below n/2^64).
func (r *source) IntN(n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// Interval is a 95% interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Bootstrap is the 95% percentile interval of statistic over n tasks:
// each resample draws n task indices with replacement and computes the
// statistic on them (the caller keeps each task's runs together). With
// fewer than two tasks the interval is the point itself.
func Bootstrap(n int, statistic func(tasks []int) float64, c Config) Interval {
	c = c.OrDefault()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	point := statistic(all)
	if n < 2 {
		return Interval{point, point}
	}
	vals := resample(c, func(r *source, out []float64) {
		idx := make([]int, n)
		for b := range out {
			for i := range idx {
				idx[i] = r.IntN(n)
			}
			out[b] = statistic(idx)
		}
	})
	return percentile(vals)
}

// chunks is how many parts a bootstrap's resamples are drawn in, each
// from a source of its own: in parallel, and the same draws on any
// number of cores.
const chunks = 8

// resample fills c.Resamples values, chunk by chunk, each chunk from its
// own source (seeded from the config and the chunk's number).
func resample(c Config, fill func(r *source, out []float64)) []float64 {
	vals := make([]float64, c.Resamples)
	var wg sync.WaitGroup
	for k := range chunks {
		lo, hi := k*len(vals)/chunks, (k+1)*len(vals)/chunks
		wg.Go(func() {
			r := &source{s: c.Seed ^ 0x5354415453 ^ uint64(k+1)*0x9e3779b97f4a7c15}
			fill(r, vals[lo:hi])
		})
	}
	wg.Wait()
	return vals
}

// percentile is the 95% percentile interval of resampled values.
func percentile(vals []float64) Interval {
	sort.Float64s(vals)
	return Interval{quantile(0.025, vals), quantile(0.975, vals)}
}

// quantile is the empirical p-quantile of sorted xs: the first value with
// at least p·n of xs at or below it (no interpolation, the definition
// gonum's stat.Empirical had, so intervals printed before hold).
func quantile(p float64, xs []float64) float64 {
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

// BootstrapMean is Bootstrap of the mean of per-task values, drawn in
// one pass (the same draws as Bootstrap with MeanOf, so the same interval).
func BootstrapMean(values []float64, c Config) Interval {
	c = c.OrDefault()
	n := len(values)
	point := MeanOf(values)(all(n))
	if n < 2 {
		return Interval{point, point}
	}
	if constant(values) {
		// every resample sums the same value n times, in the same
		// order: one sum is every draw's (the same bits as drawing them)
		s := 0.0
		for range n {
			s += values[0]
		}
		return Interval{s / float64(n), s / float64(n)}
	}
	return percentile(resample(c, func(r *source, out []float64) {
		for b := range out {
			s := 0.0
			for range n {
				s += values[r.IntN(n)]
			}
			out[b] = s / float64(n)
		}
	}))
}

// constant says whether every value is the first's, bit for bit.
func constant(values []float64) bool {
	for _, v := range values {
		if math.Float64bits(v) != math.Float64bits(values[0]) {
			return false
		}
	}
	return true
}

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// MeanOf is the statistic "mean over the chosen tasks" of per-task values.
func MeanOf(values []float64) func(tasks []int) float64 {
	return func(tasks []int) float64 {
		if len(tasks) == 0 {
			return 0
		}
		s := 0.0
		for _, i := range tasks {
			s += values[i]
		}
		return s / float64(len(tasks))
	}
}

// Permutation is a paired permutation test's outcome.
type Permutation struct {
	Mean  float64 `json:"mean_difference"`
	P     float64 `json:"p"`
	Exact bool    `json:"exact"` // every sign assignment enumerated
	Tasks int     `json:"tasks"`
}

// PairedPermutation tests whether per-task differences (one agent or
// condition minus another, each task's the mean over its runs) are
// centred on zero: under the null each difference's sign is exchangeable,
// so the two-sided p is the share of sign assignments whose mean is at
// least as far from zero as the observed one. Exact for up to ExactUpTo
// tasks, else (hits+1)/(Resamples+1) over random assignments.
func PairedPermutation(diffs []float64, c Config) Permutation {
	c = c.OrDefault()
	n := len(diffs)
	out := Permutation{Tasks: n}
	if n == 0 {
		out.P = 1
		return out
	}
	obs := math.Abs(sum(diffs))
	out.Mean = sum(diffs) / float64(n)
	// a tolerance: the same sum reached in another order must count
	tol := 1e-9 * (1 + obs)
	if n <= c.ExactUpTo {
		hits := 0
		total := uint64(1) << n
		for mask := uint64(0); mask < total; mask++ {
			if math.Abs(signed(diffs, mask)) >= obs-tol {
				hits++
			}
		}
		out.P, out.Exact = float64(hits)/float64(total), true
		return out
	}
	// the signed sum of each group of 8 differences under each of its
	// 256 sign patterns: a resample is then a table look-up per group,
	// its signs the bytes of one draw per 8 groups
	groups := (n + 7) / 8
	table := make([][256]float64, groups)
	for g := range table {
		for pat := range 256 {
			s := 0.0
			for k := 0; k < 8 && g*8+k < n; k++ {
				d := diffs[g*8+k]
				if pat&(1<<k) != 0 {
					d = -d
				}
				s += d
			}
			table[g][pat] = s
		}
	}
	// each resample's 1 when it is at least as far from zero, drawn in
	// the bootstrap's chunks
	far := resample(c, func(r *source, out []float64) {
		for b := range out {
			s := 0.0
			var signs uint64
			for g := range table {
				if g%8 == 0 {
					signs = r.Uint64()
				}
				s += table[g][signs&0xff]
				signs >>= 8
			}
			if math.Abs(s) >= obs-tol {
				out[b] = 1
			}
		}
	})
	hits := int(sum(far))
	out.P = float64(hits+1) / float64(c.Resamples+1)
	return out
}

// signed is the sum of diffs with the signs mask flips.
func signed(diffs []float64, mask uint64) float64 {
	s := 0.0
	for i, d := range diffs {
		if mask&(1<<i) != 0 {
			d = -d
		}
		s += d
	}
	return s
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// BH is the Benjamini–Hochberg adjustment of a family of p-values: the
// adjusted p of the test ranked k of m is min over j ≥ k of p_j·m/j,
// capped at 1. A test is separated at false discovery rate q when its
// adjusted p is at most q.
func BH(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	least := 1.0
	for k := m - 1; k >= 0; k-- {
		i := order[k]
		least = math.Min(least, p[i]*float64(m)/float64(k+1))
		adj[i] = least
	}
	return adj
}

// Separated reports the tests whose BH-adjusted p is at most q (5% FDR:
// q = 0.05).
func Separated(adjusted []float64, q float64) []bool {
	out := make([]bool, len(adjusted))
	for i, a := range adjusted {
		out[i] = a <= q
	}
	return out
}

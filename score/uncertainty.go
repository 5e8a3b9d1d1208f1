package score

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/stats"
)

// Option configures the scores.
type Option func(*options)

type options struct {
	stats stats.Config
	memo  *stats.Memo
}

// WithStats sets the bootstrap's resamples and seed (default
// stats.DefaultConfig).
func WithStats(c stats.Config) Option { return func(o *options) { o.stats = c } }

// WithIntervals shares one store of drawn intervals between calls (a
// report's Summarize, TurnRows and Comparisons draw some of the same:
// a Δ's interval is its paired test's). Without it each call keeps its
// own.
func WithIntervals(m *stats.Memo) Option { return func(o *options) { o.memo = m } }

func optionsOf(opts []Option) options {
	o := options{stats: stats.DefaultConfig}
	for _, f := range opts {
		f(&o)
	}
	if o.memo == nil {
		o.memo = stats.NewMemo()
	}
	return o
}

// cell is one agent under one condition.
type cell struct{ agent, cond string }

// perTask are a cell's tasks, each its mean over the runs with a
// verdict (single-turn: solved; a conversation: its LDPR score).
type perTask map[string]float64

// taskMeans are every cell's per-task means of value over the trials
// value accepts (ok false: not counted).
func taskMeans(trials []Trial, value func(Trial) (float64, bool)) map[cell]perTask {
	sums := map[cell]map[string][2]float64{}
	for _, t := range trials {
		v, ok := value(t)
		if !ok {
			continue
		}
		c := cell{t.Result.AgentName, t.Result.Condition}
		if sums[c] == nil {
			sums[c] = map[string][2]float64{}
		}
		s := sums[c][t.Result.Task]
		sums[c][t.Result.Task] = [2]float64{s[0] + v, s[1] + 1}
	}
	out := map[cell]perTask{}
	for c, tasks := range sums {
		out[c] = perTask{}
		for name, s := range tasks {
			out[c][name] = s[0] / s[1]
		}
	}
	return out
}

// solved is a single-turn trial's verdict as a number.
func solved(t Trial) (float64, bool) {
	r := t.Result
	if r.Conversation != nil || r.Resolved == nil {
		return 0, false
	}
	if *r.Resolved {
		return 1, true
	}
	return 0, true
}

// exposed reports whether a trial's agent met its intervention: an edit
// applied or a message delivered.
func exposed(r *result.Run) bool { return r.Applied > 0 || r.Delivered > 0 }

// solvedExposed is solved for an exposed trial under a condition (a
// vanilla trial has nothing to be exposed to).
func solvedExposed(t Trial) (float64, bool) {
	if t.Result.Condition == "vanilla" || !exposed(&t.Result) {
		return 0, false
	}
	return solved(t)
}

// sorted are a cell's values in task-name order (a stable order for the
// bootstrap, whatever the map's).
func (p perTask) sorted() []float64 {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]float64, len(names))
	for i, n := range names {
		out[i] = p[n]
	}
	return out
}

// mean is the cell's mean over its tasks, summed in task order.
func (p perTask) mean() float64 {
	v := p.sorted()
	return stats.MeanOf(v)(indices(len(v)))
}

// paired are the differences a − b over the tasks both have, in task
// order.
func paired(a, b perTask) []float64 {
	var names []string
	for n := range a {
		if _, ok := b[n]; ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]float64, len(names))
	for i, n := range names {
		out[i] = a[n] - b[n]
	}
	return out
}

// interval is the task bootstrap of a mean (nil with no tasks).
func (o options) interval(values []float64) *stats.Interval {
	if len(values) == 0 {
		return nil
	}
	iv := o.memo.BootstrapMean(values, o.stats)
	return &iv
}

// Comparison is one paired comparison: a condition against vanilla for
// one agent, or one agent against another under one condition, over the
// tasks both were run on.
type Comparison struct {
	Metric    string          `json:"metric"` // resolve_rate, ldpr or first_turn
	Kind      string          `json:"kind"`   // condition (against vanilla) or agents
	A         string          `json:"a"`
	B         string          `json:"b"`
	Agent     string          `json:"agent,omitempty"` // a condition's agent
	Condition string          `json:"condition"`
	Tasks     int             `json:"tasks"`
	Diff      float64         `json:"difference"`
	CI        *stats.Interval `json:"ci95"`
	P         float64         `json:"p"`
	Exact     bool            `json:"exact"`
	// PAdj is the Benjamini–Hochberg-adjusted p across the metric's
	// family; Separated: PAdj ≤ 0.05 (5% FDR).
	PAdj      float64 `json:"p_bh"`
	Separated bool    `json:"separated"`
}

// Comparisons are the paired tests of the trials: for the resolve rate
// (single-turn), and for LDPR and first-turn resolution (conversations),
// every condition against its agent's vanilla and every pair of agents
// under each condition, each a permutation test on per-task differences
// with a task bootstrap interval, BH-adjusted within the metric's family.
func Comparisons(trials []Trial, opts ...Option) []Comparison {
	o := optionsOf(opts)
	var out []Comparison
	for _, m := range []struct {
		name  string
		value func(Trial) (float64, bool)
	}{{"resolve_rate", solved}, {"ldpr", ldprScore}, {"first_turn", firstTurn}} {
		out = append(out, family(m.name, taskMeans(trials, m.value), o)...)
	}
	return out
}

func family(metric string, cells map[cell]perTask, o options) []Comparison {
	keys := make([]cell, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b cell) int {
		if a.agent != b.agent {
			return strings.Compare(a.agent, b.agent)
		}
		return ConditionOrder(a.cond) - ConditionOrder(b.cond)
	})
	var fam []Comparison
	add := func(x Comparison, diffs []float64) {
		if len(diffs) == 0 {
			return
		}
		pt := stats.PairedPermutation(diffs, o.stats)
		x.Metric, x.Tasks, x.Diff, x.CI, x.P, x.Exact = metric, len(diffs), pt.Mean, o.interval(diffs), pt.P, pt.Exact
		fam = append(fam, x)
	}
	for _, k := range keys {
		if v, ok := cells[cell{k.agent, "vanilla"}]; ok && k.cond != "vanilla" {
			add(Comparison{Kind: "condition", A: k.cond, B: "vanilla", Agent: k.agent, Condition: k.cond}, paired(cells[k], v))
		}
	}
	// agents under each condition, in the agents' order
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			if a.cond == b.cond && a.agent != b.agent {
				add(Comparison{Kind: "agents", A: a.agent, B: b.agent, Condition: a.cond}, paired(cells[a], cells[b]))
			}
		}
	}
	p := make([]float64, len(fam))
	for i := range fam {
		p[i] = fam[i].P
	}
	adj := stats.BH(p)
	for i := range fam {
		fam[i].PAdj, fam[i].Separated = adj[i], adj[i] <= 0.05
	}
	return fam
}

// firstTurn is 1 for a conversation resolved at its first turn.
func firstTurn(t Trial) (float64, bool) {
	r := t.Result
	if r.Conversation == nil || r.Resolved == nil {
		return 0, false
	}
	if rt, _, _ := turnOutcome(&r); rt != nil && *rt == 1 {
		return 1, true
	}
	return 0, true
}

// ldprScore is a conversation's LDPR score (docs/metrics.md).
func ldprScore(t Trial) (float64, bool) {
	r := t.Result
	if r.Conversation == nil || r.Resolved == nil {
		return 0, false
	}
	if rt, w, _ := turnOutcome(&r); rt != nil && *rt <= r.Budget && r.Budget > 0 {
		return (float64(r.Budget) - w + 1) / float64(r.Budget), true
	}
	return 0, true
}

// WriteComparisons prints the paired tests, separated pairs marked.
func WriteComparisons(w io.Writer, cs []Comparison, c stats.Config) {
	if len(cs) == 0 {
		return
	}
	c = c.OrDefault()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tcompared\tunder\ttasks\tdifference [95% CI]\tp\tp (BH)\tseparated")
	for _, x := range cs {
		what, under := x.A+" − "+x.B, x.Condition
		if x.Kind == "condition" {
			under = x.Agent
		}
		sep := "no"
		if x.Separated {
			sep = "yes"
		}
		diff := pointCI(x.Diff, x.CI, true)
		if x.Metric == "ldpr" { // a score, not a share
			diff = fmt.Sprintf("%+.3f", x.Diff)
			if x.CI != nil {
				diff += fmt.Sprintf(" [%.3f, %.3f]", x.CI.Lo, x.CI.Hi)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.4f\t%.4f\t%s\n", x.Metric, what, under, x.Tasks, diff, x.P, x.PAdj, sep)
	}
	tw.Flush()
	fmt.Fprintf(w, "95%% intervals: %d bootstrap resamples of tasks (runs stay in their task), seed %d; p: paired permutation tests on per-task differences (exact up to %d tasks); separated: BH-adjusted p ≤ 0.05 (5%% FDR) within each metric.\n",
		c.Resamples, c.Seed, c.ExactUpTo)
}

// pointCI prints a share with its interval, in percent: "62.0% [55.1,
// 68.7]"; signed for a difference.
func pointCI(v float64, iv *stats.Interval, signed bool) string {
	f := "%.1f%%"
	if signed {
		f = "%+.1f pp"
	}
	s := fmt.Sprintf(f, 100*v)
	if iv != nil {
		s += fmt.Sprintf(" [%.1f, %.1f]", 100*iv.Lo, 100*iv.Hi)
	}
	return s
}

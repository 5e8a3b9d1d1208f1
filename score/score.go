package score

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/swetouch/swetouch/stats"
)

// Row summarises one agent under one condition.
type Row struct {
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	Trials    int    `json:"trials"`
	Resolved  int    `json:"resolved"`
	Unknown   int    `json:"infrastructure_errors"` // resolved null: not failures
	// Unsandboxed are the trials whose agent ran without isolation (an
	// older result says nothing, and counts here): their verdicts are
	// only as good as the agent's honesty.
	Unsandboxed int     `json:"unsandboxed"`
	Rate        float64 `json:"resolve_rate"`    // mean over runs
	RateSD      float64 `json:"resolve_rate_sd"` // over runs
	// Tasks and Runs are what the figures rest on: the tasks with a
	// verdict, and the runs of them.
	Tasks int `json:"tasks"`
	Runs  int `json:"runs"`
	// RateCI is the rate's 95% interval: a bootstrap of tasks.
	RateCI *stats.Interval `json:"resolve_rate_ci95"`
	// Delta is the rate's difference from the agent's vanilla rate; nil
	// without vanilla trials to compare with.
	Delta *float64 `json:"delta_vs_vanilla"`
	// DeltaCI is Δ's 95% interval over the tasks both conditions ran.
	DeltaCI   *stats.Interval `json:"delta_ci95"`
	Retention *float64        `json:"retention"` // of the tasks vanilla majority-solves
	// RetentionCI is retention's 95% interval over those tasks.
	RetentionCI *stats.Interval `json:"retention_ci95"`
	Steps       float64         `json:"steps_mean"`
	Applied     int             `json:"interventions_applied"`
	Delivered   int             `json:"messages_delivered"`
	// Unconfirmed messages went out on a channel not shown to reach the
	// model: neither delivered nor lost.
	Unconfirmed int            `json:"messages_unconfirmed"`
	Fates       map[string]int `json:"user_edit_fates,omitempty"`
	// Exposed counts the trials with a verdict in which the agent met the
	// intervention: an edit applied or a message delivered (a
	// Counter-Edit that could not land still delivers its message). A
	// trial the agent steered clear of every trigger in says nothing of
	// how it takes the user's edit, yet counts in the rate like any
	// other: ExposedRate is the rate over the exposed trials alone (a
	// mean over tasks, as the rate is), nil when none was, and for
	// vanilla, which has nothing to be exposed to.
	Exposed       int             `json:"exposed"`
	ExposedRate   *float64        `json:"resolve_rate_exposed"`
	ExposedRateCI *stats.Interval `json:"resolve_rate_exposed_ci95"`
	tasksSolved   map[string][2]int
}

// MajorityRuns is the fewest scored runs (a verdict, not null) a task
// needs on each side for retention's majority to count it: a task
// scored once has no majority to keep, as SWE-Touch counts retention
// over repeated runs.
const MajorityRuns = 2

// Summarize groups trials by agent and condition. A run is the n-th trial
// of each task (in folder order); the rate's mean and sd are over runs.
// Retention is the share of tasks the agent's vanilla trials
// majority-solve that it still majority-solves under the condition, over
// the tasks with at least MajorityRuns scored runs under both.
func Summarize(trials []Trial, opts ...Option) []Row {
	o := optionsOf(opts)
	means := taskMeans(trials, solved)
	exposedMeans := taskMeans(trials, solvedExposed)
	type key struct{ agent, cond string }
	rows := map[key]*Row{}
	runOf := map[[3]string]int{} // agent, cond, task → trials seen
	perRun := map[key]map[int][2]int{}
	for _, t := range trials {
		r := t.Result
		if r.Conversation != nil {
			continue // a conversation's verdict comes by turns: TurnRows
		}
		k := key{r.AgentName, r.Condition}
		row, ok := rows[k]
		if !ok {
			row = &Row{Agent: k.agent, Condition: k.cond, Fates: map[string]int{}, tasksSolved: map[string][2]int{}}
			rows[k] = row
			perRun[k] = map[int][2]int{}
		}
		run := runOf[[3]string{k.agent, k.cond, r.Task}]
		runOf[[3]string{k.agent, k.cond, r.Task}]++
		row.Trials++
		row.Steps += float64(r.Steps)
		row.Applied += r.Applied
		row.Delivered += r.Delivered
		row.Unconfirmed += r.Unconfirmed
		if r.Sandbox != "bwrap" {
			row.Unsandboxed++
		}
		if t.Fate != "" {
			row.Fates[t.Fate]++
		}
		ts := row.tasksSolved[r.Task]
		pr := perRun[k][run]
		switch {
		case r.Resolved == nil:
			row.Unknown++
			continue
		case *r.Resolved:
			row.Resolved++
			ts[0]++
			pr[0]++
		}
		if exposed(&r) {
			row.Exposed++
		}
		ts[1]++
		pr[1]++
		row.tasksSolved[r.Task] = ts
		perRun[k][run] = pr
	}
	var out []Row
	for k, row := range rows {
		var rates []float64
		for _, pr := range perRun[k] {
			if pr[1] > 0 {
				rates = append(rates, float64(pr[0])/float64(pr[1]))
			}
		}
		row.Rate, row.RateSD = meanSD(rates)
		row.Runs = len(rates)
		row.Tasks = len(means[cell{k.agent, k.cond}])
		row.RateCI = o.interval(means[cell{k.agent, k.cond}].sorted())
		row.Steps /= float64(max(row.Trials, 1))
		if em := exposedMeans[cell{k.agent, k.cond}]; len(em) > 0 {
			m := em.mean()
			row.ExposedRate, row.ExposedRateCI = &m, o.interval(em.sorted())
		}
		if len(row.Fates) == 0 {
			row.Fates = nil
		}
		out = append(out, *row)
	}
	byKey := map[key]*Row{}
	for i := range out {
		byKey[key{out[i].Agent, out[i].Condition}] = &out[i]
	}
	for i := range out {
		v, ok := byKey[key{out[i].Agent, "vanilla"}]
		if !ok || v.Runs == 0 || out[i].Runs == 0 {
			continue // no verdict on one side: no difference to tell
		}
		d := out[i].Rate - v.Rate
		out[i].Delta = &d
		if out[i].Condition != "vanilla" {
			out[i].DeltaCI = o.interval(paired(means[cell{out[i].Agent, out[i].Condition}], means[cell{out[i].Agent, "vanilla"}]))
		}
		kept := perTask{} // the tasks vanilla majority-solves: kept or not
		for task, s := range v.tasksSolved {
			c := out[i].tasksSolved[task]
			if s[1] < MajorityRuns || c[1] < MajorityRuns {
				continue // one scored run is no majority (the paper's rule)
			}
			if 2*s[0] > s[1] {
				kept[task] = 0
				if 2*c[0] > c[1] {
					kept[task] = 1
				}
			}
		}
		if len(kept) > 0 {
			r := kept.mean()
			out[i].Retention = &r
			out[i].RetentionCI = o.interval(kept.sorted())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return ConditionOrder(out[i].Condition) < ConditionOrder(out[j].Condition)
	})
	return out
}

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// ConditionOrder is a condition's place in tables: vanilla first, then
// counter-edit, co-edit, message-only, code-only.
func ConditionOrder(c string) int {
	for i, x := range []string{"vanilla", "counter-edit", "co-edit", "message-only", "code-only"} {
		if c == x {
			return i
		}
	}
	return 99
}

func meanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, 0
	}
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1))
}

// WriteCSV writes rows as CSV.
func WriteCSV(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "agent,condition,tasks,runs,trials,resolved,infrastructure_errors,resolve_rate,resolve_rate_sd,resolve_rate_lo,resolve_rate_hi,delta_vs_vanilla,delta_lo,delta_hi,retention,retention_lo,retention_hi,steps_mean,interventions_applied,messages_delivered,messages_unconfirmed,retained,removed,replaced,exposed,resolve_rate_exposed,resolve_rate_exposed_lo,resolve_rate_exposed_hi")
	for _, r := range rows {
		fmt.Fprintf(w, "%s,%s,%d,%d,%d,%d,%d,%.4f,%.4f,%s,%s,%s,%s,%s,%.2f,%d,%d,%d,%d,%d,%d,%d,%s,%s\n", r.Agent, r.Condition, r.Tasks, r.Runs, r.Trials, r.Resolved, r.Unknown,
			r.Rate, r.RateSD, csvCI(r.RateCI), csvOpt(r.Delta), csvCI(r.DeltaCI), csvOpt(r.Retention), csvCI(r.RetentionCI),
			r.Steps, r.Applied, r.Delivered, r.Unconfirmed, r.Fates[Retained], r.Fates[Removed], r.Fates[Replaced],
			r.Exposed, csvOpt(r.ExposedRate), csvCI(r.ExposedRateCI))
	}
}

// WriteTable writes rows as an aligned table.
func WriteTable(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\ttasks×runs\tresolved\trate [95% CI]\texposed\trate exposed [95% CI]\tΔ vs vanilla [95% CI]\tretention [95% CI]\tsteps\tapplied\tdelivered\tuser edit")
	for _, r := range rows {
		ret := "–"
		if r.Retention != nil {
			ret = pointCI(*r.Retention, r.RetentionCI, false)
		}
		fateText := "-"
		if len(r.Fates) > 0 {
			fateText = fmt.Sprintf("retained %d, removed %d, replaced %d", r.Fates[Retained], r.Fates[Removed], r.Fates[Replaced])
		}
		res := fmt.Sprintf("%d/%d", r.Resolved, r.Trials-r.Unknown)
		if r.Unknown > 0 {
			res += fmt.Sprintf(" (+%d null)", r.Unknown)
		}
		if r.Unsandboxed > 0 {
			res += fmt.Sprintf(" (%d unsandboxed)", r.Unsandboxed)
		}
		delta := "–"
		if r.Condition != "vanilla" && r.Delta != nil {
			delta = pointCI(*r.Delta, r.DeltaCI, true)
		}
		delivered := fmt.Sprint(r.Delivered)
		if r.Unconfirmed > 0 {
			delivered += fmt.Sprintf(" (+%d unconfirmed)", r.Unconfirmed)
		}
		exp, expRate := ExposureText(r)
		rate := "–" // no trial with a verdict: no rate, not 0%
		if r.Runs > 0 {
			rate = pointCI(r.Rate, r.RateCI, false)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d×%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%d\t%s\t%s\n", r.Agent, r.Condition, r.Tasks, r.Runs, res, rate,
			exp, expRate, delta, ret, r.Steps, r.Applied, delivered, fateText)
	}
	tw.Flush()
}

// ExposureText is a row's exposed trials ("5/12") and its rate over them
// with its interval, "–" for vanilla and for a row none of whose
// trials was exposed.
func ExposureText(r Row) (exposed, rate string) {
	if r.Condition == "vanilla" {
		return "–", "–"
	}
	exposed = fmt.Sprintf("%d/%d", r.Exposed, r.Trials-r.Unknown)
	if r.ExposedRate == nil {
		return exposed, "–"
	}
	return exposed, pointCI(*r.ExposedRate, r.ExposedRateCI, false)
}

// WriteRanks writes each agent's place under every condition against its
// vanilla place.
func WriteRanks(w io.Writer, ranks []RankChange) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "condition\tagent\tvanilla rank\trank\tchange")
	for _, r := range ranks {
		change := "same"
		switch {
		case r.Rank < r.Vanilla:
			change = fmt.Sprintf("up %d", r.Vanilla-r.Rank)
		case r.Rank > r.Vanilla:
			change = fmt.Sprintf("down %d", r.Rank-r.Vanilla)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", r.Condition, r.Agent, r.Vanilla, r.Rank, change)
	}
	tw.Flush()
}

// RankChange is an agent's place among the agents under a condition
// against its place under vanilla (1 is best; ties share a place).
type RankChange struct {
	Condition string `json:"condition"`
	Agent     string `json:"agent"`
	Vanilla   int    `json:"vanilla_rank"`
	Rank      int    `json:"rank"`
}

// Ranks ranks the agents by resolve rate under every condition and pairs
// each place with the agent's vanilla place; nil with fewer than two
// agents or no vanilla rows.
func Ranks(rows []Row) []RankChange {
	byCond := map[string][]Row{}
	for _, r := range rows {
		byCond[r.Condition] = append(byCond[r.Condition], r)
	}
	place := func(rs []Row) map[string]int {
		p := map[string]int{}
		for _, r := range rs {
			n := 1
			for _, o := range rs {
				if o.Rate > r.Rate {
					n++
				}
			}
			p[r.Agent] = n
		}
		return p
	}
	van := byCond["vanilla"]
	if len(van) < 2 {
		return nil
	}
	vp := place(van)
	// an agent without vanilla trials has no rank change to show, and
	// takes no place from those that do
	for c, rs := range byCond {
		byCond[c] = slices.DeleteFunc(slices.Clone(rs), func(r Row) bool { _, ok := vp[r.Agent]; return !ok })
	}
	var conds []string
	for c := range byCond {
		if c != "vanilla" {
			conds = append(conds, c)
		}
	}
	sort.Slice(conds, func(i, j int) bool {
		return ConditionOrder(conds[i]) < ConditionOrder(conds[j]) || ConditionOrder(conds[i]) == ConditionOrder(conds[j]) && conds[i] < conds[j]
	})
	var out []RankChange
	for _, c := range conds {
		p := place(byCond[c])
		agents := make([]string, 0, len(p))
		for a := range p {
			agents = append(agents, a)
		}
		sort.Slice(agents, func(i, j int) bool {
			return p[agents[i]] < p[agents[j]] || p[agents[i]] == p[agents[j]] && agents[i] < agents[j]
		})
		for _, a := range agents {
			if v, ok := vp[a]; ok {
				out = append(out, RankChange{Condition: c, Agent: a, Vanilla: v, Rank: p[a]})
			}
		}
	}
	return out
}

// csvOpt is an optional figure in CSV ("" for none).
func csvOpt(v *float64) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf("%.4f", *v)
}

// csvCI is an interval as two CSV fields.
func csvCI(iv *stats.Interval) string {
	if iv == nil {
		return ","
	}
	return fmt.Sprintf("%.4f,%.4f", iv.Lo, iv.Hi)
}

// WriteTurnCSV writes the conversations' rows as CSV: one line per agent,
// condition and budget k.
func WriteTurnCSV(w io.Writer, rows []TurnRow) {
	fmt.Fprintln(w, "agent,condition,tasks,trials,infrastructure_errors,k,resolved_within_k,resolved_within_k_lo,resolved_within_k_hi,ldpr,ldpr_lo,ldpr_hi,mean_weighted_turns")
	for _, r := range rows {
		for k := range r.ResolvedBy {
			fmt.Fprintf(w, "%s,%s,%d,%d,%d,%d,%.4f,%s,%.4f,%s,%.4f\n", r.Agent, r.Condition, r.Tasks, r.Trials, r.Errors, k+1,
				r.ResolvedBy[k], csvCI(r.ResolvedByCI[k]), r.LDPR, csvCI(r.LDPRCI), r.WeightedTurns)
		}
	}
}

// WriteComparisonsCSV writes the paired tests as CSV.
func WriteComparisonsCSV(w io.Writer, cs []Comparison) {
	fmt.Fprintln(w, "metric,kind,a,b,agent,condition,tasks,difference,difference_lo,difference_hi,p,exact,p_bh,separated")
	for _, c := range cs {
		fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s,%d,%.4f,%s,%.6f,%v,%.6f,%v\n", c.Metric, c.Kind, CSVField(c.A), CSVField(c.B), CSVField(c.Agent), CSVField(c.Condition),
			c.Tasks, c.Diff, csvCI(c.CI), c.P, c.Exact, c.PAdj, c.Separated)
	}
}

// CSVField quotes a CSV field when it must be.
func CSVField(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

package score

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/stats"
)

// TurnRow is one agent's multi-turn trials under one condition (a
// conversation with SWE-Touch records is both talked and touched): the
// share of tasks resolved within k turns for every k up to the largest
// budget, the first-turn share, the length-discounted pass rate and the
// mean weighted turns. Every figure is a mean over tasks, each task's the
// mean over its runs, so a task run more often does not weigh more.
// Trials without a verdict (infrastructure errors) are counted apart.
type TurnRow struct {
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	Tasks     int    `json:"tasks"`
	Trials    int    `json:"trials"`
	Errors    int    `json:"infrastructure_errors"`
	// ResolvedBy[k-1] is the share of tasks resolved within k turns.
	ResolvedBy   []float64         `json:"resolved_by_turn"`
	ResolvedByCI []*stats.Interval `json:"resolved_by_turn_ci95"`
	FirstTurn    float64           `json:"first_turn"`
	FirstTurnCI  *stats.Interval   `json:"first_turn_ci95"`
	// LDPR: a task resolved within its budget K after w weighted turns
	// scores (K − w + 1) / K, one never resolved 0 (docs/metrics.md).
	LDPR          float64         `json:"ldpr"`
	LDPRCI        *stats.Interval `json:"ldpr_ci95"`
	WeightedTurns float64         `json:"mean_weighted_turns"`
	// Disagree counts the trials whose per-turn verdict and final
	// verifier disagree; each is counted by the final one.
	Disagree int `json:"verdicts_disagree,omitempty"`
}

// TurnRows are the rows of the multi-turn trials, by agent and
// condition (sorted); single-turn trials are Summarize's. Every figure
// has its 95% interval, a bootstrap of tasks.
func TurnRows(trials []Trial, opts ...Option) []TurnRow {
	o := optionsOf(opts)
	rows := map[cell]*TurnRow{}
	budget := 0
	for _, t := range trials {
		r := t.Result
		if r.Conversation == nil {
			continue
		}
		c := cell{r.AgentName, r.Condition}
		if rows[c] == nil {
			rows[c] = &TurnRow{Agent: c.agent, Condition: c.cond}
		}
		rows[c].Trials++
		if r.Resolved == nil {
			rows[c].Errors++
		}
		if r.TurnVerdictDisagrees() {
			rows[c].Disagree++
		}
		budget = max(budget, r.Budget)
	}
	conv := func(value func(r Trial) float64) map[cell]perTask {
		return taskMeans(trials, func(t Trial) (float64, bool) {
			if t.Result.Conversation == nil || t.Result.Resolved == nil {
				return 0, false
			}
			return value(t), true
		})
	}
	within := func(k int) func(Trial) float64 {
		return func(t Trial) float64 {
			if rt, _, _ := turnOutcome(&t.Result); rt != nil && *rt <= k && *rt <= t.Result.Budget {
				return 1
			}
			return 0
		}
	}
	ldpr := conv(func(t Trial) float64 { v, _ := ldprScore(t); return v })
	weighted := conv(func(t Trial) float64 { _, w, _ := turnOutcome(&t.Result); return w })
	by := make([]map[cell]perTask, budget)
	for k := range by {
		by[k] = conv(within(k + 1))
	}
	var out []TurnRow
	for c, row := range rows {
		row.Tasks = len(ldpr[c])
		row.ResolvedBy = make([]float64, budget)
		row.ResolvedByCI = make([]*stats.Interval, budget)
		for k := range by {
			row.ResolvedBy[k] = by[k][c].mean()
			row.ResolvedByCI[k] = o.interval(by[k][c].sorted())
		}
		if budget > 0 {
			row.FirstTurn, row.FirstTurnCI = row.ResolvedBy[0], row.ResolvedByCI[0]
		}
		row.LDPR, row.LDPRCI = ldpr[c].mean(), o.interval(ldpr[c].sorted())
		row.WeightedTurns = weighted[c].mean()
		out = append(out, *row)
	}
	slices.SortFunc(out, func(a, b TurnRow) int {
		return strings.Compare(a.Agent+"\x00"+a.Condition, b.Agent+"\x00"+b.Condition)
	})
	return out
}

// BudgetRank is each agent's place by resolved-within-k under one
// condition, for every budget k (1 is best; ties share a place): the
// best at turn 1 need not be the best at turn 8.
type BudgetRank struct {
	Condition string `json:"condition"`
	Agent     string `json:"agent"`
	// Ranks[k-1] is the place at budget k.
	Ranks []int `json:"ranks"`
	// Changes are the budgets at which the place differs from the one
	// before.
	Changes []int `json:"changes_at"`
}

// BudgetRanks ranks the agents of each condition at every budget.
func BudgetRanks(rows []TurnRow) []BudgetRank {
	var out []BudgetRank
	for _, r := range rows {
		br := BudgetRank{Condition: r.Condition, Agent: r.Agent, Ranks: make([]int, len(r.ResolvedBy))}
		for k := range r.ResolvedBy {
			place := 1
			for _, o := range rows {
				if o.Condition == r.Condition && k < len(o.ResolvedBy) && o.ResolvedBy[k] > r.ResolvedBy[k]+1e-12 {
					place++
				}
			}
			br.Ranks[k] = place
			if k > 0 && place != br.Ranks[k-1] {
				br.Changes = append(br.Changes, k+1)
			}
		}
		out = append(out, br)
	}
	return out
}

// WriteTurnTable prints the multi-turn rows: resolved within k turns for
// each k, LDPR and mean weighted turns.
func WriteTurnTable(w io.Writer, rows []TurnRow) {
	if len(rows) == 0 {
		return
	}
	budget := 0
	for _, r := range rows {
		budget = max(budget, len(r.ResolvedBy))
	}
	fmt.Fprintf(w, "%-12s %-13s %5s", "agent", "condition", "tasks")
	for k := 1; k <= budget; k++ {
		fmt.Fprintf(w, " %6s", fmt.Sprintf("≤%d", k))
	}
	fmt.Fprintf(w, " %20s %8s\n", "LDPR [95% CI]", "w.turns")
	for _, r := range rows {
		fmt.Fprintf(w, "%-12s %-13s %5d", r.Agent, r.Condition, r.Tasks)
		if r.Tasks == 0 {
			// every trial was null: no figure, not 0%
			for k := 0; k < budget; k++ {
				fmt.Fprintf(w, " %6s", "–")
			}
			fmt.Fprintf(w, " %20s %8s  (+%d without a verdict)\n", "–", "–", r.Errors)
			continue
		}
		for k := 0; k < budget; k++ {
			if k < len(r.ResolvedBy) {
				fmt.Fprintf(w, " %5.1f%%", 100*r.ResolvedBy[k])
			} else {
				fmt.Fprintf(w, " %6s", "–")
			}
		}
		ldpr := fmt.Sprintf("%.3f", r.LDPR)
		if r.LDPRCI != nil {
			ldpr += fmt.Sprintf(" [%.3f, %.3f]", r.LDPRCI.Lo, r.LDPRCI.Hi)
		}
		fmt.Fprintf(w, " %20s %8.2f", ldpr, r.WeightedTurns)
		if r.Errors > 0 {
			fmt.Fprintf(w, "  (+%d without a verdict)", r.Errors)
		}
		if r.Disagree > 0 {
			fmt.Fprintf(w, "  (%d whose turn verdict the final verifier contradicts, counted by the final)", r.Disagree)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "≤k: tasks resolved within k turns. LDPR: (K − w + 1)/K per task resolved within its budget K after w weighted turns (a turn without a code change weighs ½), 0 otherwise.")
}

// WriteBudgetRanks prints where the agents' places change with the
// budget (nothing when they never do).
func WriteBudgetRanks(w io.Writer, ranks []BudgetRank) {
	for _, r := range ranks {
		if len(r.Changes) == 0 {
			continue
		}
		places := make([]string, len(r.Ranks))
		for k, p := range r.Ranks {
			places[k] = fmt.Sprint(p)
		}
		fmt.Fprintf(w, "rank by budget: %s under %s places %s (changes at k = %v)\n", r.Agent, r.Condition, strings.Join(places, " "), r.Changes)
	}
}

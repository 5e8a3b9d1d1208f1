package score

import (
	"fmt"
	"io"
	"slices"
	"strings"
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
	ResolvedBy []float64 `json:"resolved_by_turn"`
	FirstTurn  float64   `json:"first_turn"`
	// LDPR: a task resolved within its budget K after w weighted turns
	// scores (K − w + 1) / K, one never resolved 0 (docs/metrics.md).
	LDPR          float64 `json:"ldpr"`
	WeightedTurns float64 `json:"mean_weighted_turns"`
}

// TurnRows are the rows of the multi-turn trials, by agent and
// condition (sorted); single-turn trials are Summarize's.
func TurnRows(trials []Trial) []TurnRow {
	type key struct{ agent, cond string }
	type sums struct {
		runs                  int
		ldpr, weighted, first float64
		resolvedAt            []int
	}
	perTask := map[key]map[string]*sums{}
	rows := map[key]*TurnRow{}
	budget := 0
	for _, t := range trials {
		r := t.Result
		if r.Conversation == nil {
			continue
		}
		k := key{r.AgentName, r.Condition}
		if rows[k] == nil {
			rows[k] = &TurnRow{Agent: k.agent, Condition: k.cond}
			perTask[k] = map[string]*sums{}
		}
		rows[k].Trials++
		if r.Resolved == nil {
			rows[k].Errors++
			continue
		}
		s := perTask[k][r.Task]
		if s == nil {
			s = &sums{}
			perTask[k][r.Task] = s
		}
		s.runs++
		s.weighted += r.WeightedTurns
		K := r.Budget
		budget = max(budget, K)
		if rt := r.ResolvedTurn; rt != nil && *rt <= K {
			s.resolvedAt = append(s.resolvedAt, *rt)
			s.ldpr += (float64(K) - r.WeightedTurns + 1) / float64(K)
			if *rt == 1 {
				s.first++
			}
		}
	}
	var out []TurnRow
	for k, row := range rows {
		tasks := perTask[k]
		row.Tasks = len(tasks)
		row.ResolvedBy = make([]float64, budget)
		// in task order: a float sum in map order would round differently
		// from run to run
		names := make([]string, 0, len(tasks))
		for name := range tasks {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			s := tasks[name]
			n := float64(s.runs)
			for i := range row.ResolvedBy {
				within := 0
				for _, at := range s.resolvedAt {
					if at <= i+1 {
						within++
					}
				}
				row.ResolvedBy[i] += float64(within) / n
			}
			row.FirstTurn += s.first / n
			row.LDPR += s.ldpr / n
			row.WeightedTurns += s.weighted / n
		}
		if len(tasks) > 0 {
			n := float64(len(tasks))
			for i := range row.ResolvedBy {
				row.ResolvedBy[i] /= n
			}
			row.FirstTurn /= n
			row.LDPR /= n
			row.WeightedTurns /= n
		}
		out = append(out, *row)
	}
	slices.SortFunc(out, func(a, b TurnRow) int {
		return strings.Compare(a.Agent+"\x00"+a.Condition, b.Agent+"\x00"+b.Condition)
	})
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
	fmt.Fprintf(w, " %6s %8s\n", "LDPR", "w.turns")
	for _, r := range rows {
		fmt.Fprintf(w, "%-12s %-13s %5d", r.Agent, r.Condition, r.Tasks)
		for k := 0; k < budget; k++ {
			if k < len(r.ResolvedBy) {
				fmt.Fprintf(w, " %5.1f%%", 100*r.ResolvedBy[k])
			} else {
				fmt.Fprintf(w, " %6s", "–")
			}
		}
		fmt.Fprintf(w, " %6.3f %8.2f", r.LDPR, r.WeightedTurns)
		if r.Errors > 0 {
			fmt.Fprintf(w, "  (+%d without a verdict)", r.Errors)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "≤k: tasks resolved within k turns. LDPR: (K − w + 1)/K per task resolved within its budget K after w weighted turns (a turn without a code change weighs ½), 0 otherwise.")
}

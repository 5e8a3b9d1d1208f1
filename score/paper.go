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

// PaperRow is what SWE-Touch's paper reports of one agent under one
// condition beside the summary's rates: steps counted as the paper
// counts them (model calls), the shell actions swetouch counts, the
// token cost normalised by the agent's vanilla, and how often the agent
// revised the user's edit (Fig. 4c). docs/metrics.md gives each rule.
type PaperRow struct {
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	Trials    int    `json:"trials"`
	// ModelCalls is the mean of the paper's steps, model calls, over the
	// Counted trials whose calls the recorder in front of the agent's
	// endpoint counted (result.json model_usage.calls, else model_calls);
	// nil when none was.
	ModelCalls *float64 `json:"model_calls_mean"`
	Counted    int      `json:"model_calls_counted"`
	// ShellActions is the mean of swetouch's steps, the agent's actions
	// the hub saw (shell commands, tool calls): not the paper's unit.
	ShellActions float64 `json:"shell_actions_mean"`
	// Tokens is the mean of input plus output tokens per counted trial.
	Tokens *float64 `json:"tokens_mean"`
	// TokensVsVanilla is the normalised token cost: over the tasks whose
	// traffic was counted under both, the mean of each task's tokens
	// under the condition over its tokens under vanilla (1 = the same
	// cost); nil for vanilla and without such tasks.
	TokensVsVanilla *float64 `json:"tokens_vs_vanilla"`
	TokenTasks      int      `json:"tokens_vs_vanilla_tasks"`
	// Landed are the trials in which a Counter-Edit landed and its lines
	// could be followed to the final diff; Revised those whose final
	// diff no longer holds all of them (removed or replaced): Fig. 4c's
	// "edit revised". RevisionRate is Revised/Landed, nil without any.
	Landed       int      `json:"edit_landed"`
	Revised      int      `json:"edit_revised"`
	RevisionRate *float64 `json:"revision_rate"`
}

// modelCalls are a trial's model calls where the recorder counted them:
// the calls its provider answered (model_usage), else the step budget's
// count (model_calls, which holds the one refused past the limit too).
func modelCalls(r *result.Run) (int, bool) {
	switch {
	case r.ModelUsage != nil:
		return r.ModelUsage.Calls, true
	case r.ModelCalls > 0:
		return r.ModelCalls, true
	}
	return 0, false
}

// tokens are a trial's input and output tokens where they were counted.
func tokens(t Trial) (float64, bool) {
	mu := t.Result.ModelUsage
	if mu == nil || t.Result.Conversation != nil {
		return 0, false
	}
	return float64(mu.Input + mu.Output), true
}

// PaperRows computes the paper's figures per agent and condition
// (single-turn trials; a conversation's are by turn).
func PaperRows(trials []Trial) []PaperRow {
	rows := map[cell]*PaperRow{}
	calls := map[cell]float64{}
	tok := map[cell][2]float64{}
	for _, t := range trials {
		r := &t.Result
		if r.Conversation != nil {
			continue
		}
		c := cell{r.AgentName, r.Condition}
		row := rows[c]
		if row == nil {
			row = &PaperRow{Agent: c.agent, Condition: c.cond}
			rows[c] = row
		}
		row.Trials++
		row.ShellActions += float64(r.Steps)
		if n, ok := modelCalls(r); ok {
			row.Counted++
			calls[c] += float64(n)
		}
		if v, ok := tokens(t); ok {
			s := tok[c]
			tok[c] = [2]float64{s[0] + v, s[1] + 1}
		}
		if t.Fate != "" {
			row.Landed++
			if t.Fate != Retained {
				row.Revised++
			}
		}
	}
	perTask := taskMeans(trials, tokens)
	var out []PaperRow
	for c, row := range rows {
		row.ShellActions /= float64(row.Trials)
		if row.Counted > 0 {
			m := calls[c] / float64(row.Counted)
			row.ModelCalls = &m
		}
		if s := tok[c]; s[1] > 0 {
			m := s[0] / s[1]
			row.Tokens = &m
		}
		if c.cond != "vanilla" {
			row.TokensVsVanilla, row.TokenTasks = ratioToVanilla(perTask[c], perTask[cell{c.agent, "vanilla"}])
		}
		if row.Landed > 0 {
			r := float64(row.Revised) / float64(row.Landed)
			row.RevisionRate = &r
		}
		out = append(out, *row)
	}
	slices.SortFunc(out, func(a, b PaperRow) int {
		if a.Agent != b.Agent {
			return strings.Compare(a.Agent, b.Agent)
		}
		return ConditionOrder(a.Condition) - ConditionOrder(b.Condition)
	})
	return out
}

// ratioToVanilla is the mean over the tasks both hold (vanilla's above
// zero) of cond's value over vanilla's, in task order.
func ratioToVanilla(cond, vanilla perTask) (*float64, int) {
	var names []string
	for name := range cond {
		if v, ok := vanilla[name]; ok && v > 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, 0
	}
	slices.Sort(names)
	sum := 0.0
	for _, name := range names {
		sum += cond[name] / vanilla[name]
	}
	m := sum / float64(len(names))
	return &m, len(names)
}

// Correlation is Spearman's ρ between two per-agent figures under one
// condition, across the agents that have both.
type Correlation struct {
	Condition string   `json:"condition"`
	X         string   `json:"x"`
	Y         string   `json:"y"`
	Agents    int      `json:"agents"`
	Rho       *float64 `json:"rho"` // nil: fewer than three agents, or a constant side
}

// RevisionCorrelations relate each agent's revision rate to its Δ
// against vanilla under every condition, as the paper's Fig. 4 caption
// does ("models that revise or remove the user edit more often tend to
// experience smaller resolve-rate drops").
func RevisionCorrelations(rows []Row, paper []PaperRow) []Correlation {
	delta := map[cell]float64{}
	for _, r := range rows {
		if r.Delta != nil {
			delta[cell{r.Agent, r.Condition}] = *r.Delta
		}
	}
	byCond := map[string][2][]float64{}
	var conds []string
	for _, p := range paper {
		d, ok := delta[cell{p.Agent, p.Condition}]
		if p.Condition == "vanilla" || p.RevisionRate == nil || !ok {
			continue
		}
		xy, seen := byCond[p.Condition]
		if !seen {
			conds = append(conds, p.Condition)
		}
		byCond[p.Condition] = [2][]float64{append(xy[0], *p.RevisionRate), append(xy[1], d)}
	}
	slices.SortFunc(conds, func(a, b string) int { return ConditionOrder(a) - ConditionOrder(b) })
	var out []Correlation
	for _, c := range conds {
		xy := byCond[c]
		cor := Correlation{Condition: c, X: "revision_rate", Y: "delta_vs_vanilla", Agents: len(xy[0])}
		if rho, ok := stats.Spearman(xy[0], xy[1]); ok {
			cor.Rho = &rho
		}
		out = append(out, cor)
	}
	return out
}

// WritePaper prints the paper's figures: steps both ways (model calls
// are the paper's), tokens and their ratio to vanilla, the revision
// rate, and the revision–Δ correlations.
func WritePaper(w io.Writer, rows []PaperRow, cors []Correlation) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\tsteps (model calls, paper's)\tshell actions\ttokens/trial\ttokens vs vanilla\tedit revised")
	for _, r := range rows {
		steps := "–"
		if r.ModelCalls != nil {
			steps = fmt.Sprintf("%.1f (%d/%d counted)", *r.ModelCalls, r.Counted, r.Trials)
		}
		toks, norm, rev := "–", "–", "–"
		if r.Tokens != nil {
			toks = fmt.Sprintf("%.0f", *r.Tokens)
		}
		if r.TokensVsVanilla != nil {
			norm = fmt.Sprintf("×%.2f (%d tasks)", *r.TokensVsVanilla, r.TokenTasks)
		}
		if r.RevisionRate != nil {
			rev = fmt.Sprintf("%.1f%% (%d/%d)", 100**r.RevisionRate, r.Revised, r.Landed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%s\t%s\n", r.Agent, r.Condition, steps, r.ShellActions, toks, norm, rev)
	}
	tw.Flush()
	for _, c := range cors {
		rho := "undefined (fewer than three agents, or a constant side)"
		if c.Rho != nil {
			rho = fmt.Sprintf("%+.3f", *c.Rho)
		}
		fmt.Fprintf(w, "Spearman ρ(edit revised, Δ vs vanilla) under %s over %d agents: %s\n", c.Condition, c.Agents, rho)
	}
	fmt.Fprintln(w, "steps: the paper counts model calls (the recorder's, where run had --model-upstream); shell actions are the hub's. edit revised: trials whose final diff no longer holds every line a landed Counter-Edit added (Fig. 4c).")
}

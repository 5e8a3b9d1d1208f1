package score

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/swetouch/swetouch/result"
)

// CostRow is what one agent's trials under one condition cost: the
// agent's own model calls and tokens, counted from its traffic (run
// --model-upstream), and apart from them the calls of the model that
// writes the user's messages.
type CostRow struct {
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	// Trials are the trials whose traffic was counted.
	Trials int `json:"trials"`
	result.Tokens
	// CostUSD is the sum over the trials, nil unless every one's price
	// was known.
	CostUSD *float64 `json:"cost_usd"`
	// UserCalls and UserTokens are the user model's (prompt and
	// completion tokens), counted apart.
	UserCalls  int `json:"user_model_calls"`
	UserTokens int `json:"user_model_tokens"`
	// JudgeCalls and JudgeTokens are a conversation's judge's and
	// reviewer's, counted apart too.
	JudgeCalls  int `json:"judge_calls"`
	JudgeTokens int `json:"judge_tokens"`
}

// Costs sums the trials' model usage by agent and condition (sorted);
// trials without counted traffic are left out.
func Costs(trials []Trial) []CostRow {
	rows := map[cell]*CostRow{}
	known := map[cell]bool{}
	for _, t := range trials {
		r := t.Result
		var models map[string]result.UserModelUsage
		if r.Conversation != nil {
			models = r.Conversation.Models
		}
		if r.ModelUsage == nil && r.UserModel == nil && len(models) == 0 {
			continue
		}
		c := cell{r.AgentName, r.Condition}
		row := rows[c]
		if row == nil {
			row = &CostRow{Agent: c.agent, Condition: c.cond}
			rows[c], known[c] = row, true
		}
		if u := r.UserModel; u != nil {
			row.UserCalls += u.Calls
			row.UserTokens += u.PromptTokens + u.CompletionTokens
		}
		for role, u := range models {
			if role == "phrase" {
				row.UserCalls += u.Calls
				row.UserTokens += u.PromptTokens + u.CompletionTokens
			} else {
				row.JudgeCalls += u.Calls
				row.JudgeTokens += u.PromptTokens + u.CompletionTokens
			}
		}
		if mu := r.ModelUsage; mu != nil {
			row.Trials++
			row.Tokens = row.Tokens.Add(mu.Tokens)
			if mu.CostUSD == nil {
				known[c] = false
			} else {
				s := *mu.CostUSD
				if row.CostUSD != nil {
					s += *row.CostUSD
				}
				row.CostUSD = &s
			}
		}
	}
	var out []CostRow
	for c, row := range rows {
		if !known[c] || row.Trials == 0 {
			row.CostUSD = nil
		}
		out = append(out, *row)
	}
	slices.SortFunc(out, func(a, b CostRow) int {
		if a.Agent != b.Agent {
			return strings.Compare(a.Agent, b.Agent)
		}
		return ConditionOrder(a.Condition) - ConditionOrder(b.Condition)
	})
	return out
}

// WriteCosts prints the cost table: sums, and the agent's per trial.
func WriteCosts(w io.Writer, rows []CostRow) {
	if len(rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\ttrials\tcalls\tinput tokens\t(cached)\toutput tokens\tper trial (calls, in, out)\tcost\tuser model (calls, tokens)\tjudge and reviewer (calls, tokens)")
	for _, r := range rows {
		per := "–"
		if r.Trials > 0 {
			n := float64(r.Trials)
			per = fmt.Sprintf("%.1f, %.0f, %.0f", float64(r.Calls)/n, float64(r.Input)/n, float64(r.Output)/n)
		}
		cost := "–"
		if r.CostUSD != nil {
			cost = fmt.Sprintf("$%.4f", *r.CostUSD)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d, %d\t%d, %d\n", r.Agent, r.Condition, r.Trials, r.Calls, r.Input, r.Cached, r.Output, per, cost, r.UserCalls, r.UserTokens, r.JudgeCalls, r.JudgeTokens)
	}
	tw.Flush()
	fmt.Fprintln(w, "cost: the agent's tokens at the --prices given (– where a model's price was not); the user model's (and a conversation's phrasing) and the judge's and reviewer's calls are counted apart.")
}

// WriteCostsCSV writes the cost rows as CSV.
func WriteCostsCSV(w io.Writer, rows []CostRow) {
	fmt.Fprintln(w, "agent,condition,trials,calls,input_tokens,cached_input_tokens,output_tokens,cost_usd,user_model_calls,user_model_tokens,judge_calls,judge_tokens")
	for _, r := range rows {
		fmt.Fprintf(w, "%s,%s,%d,%d,%d,%d,%d,%s,%d,%d,%d,%d\n", CSVField(r.Agent), CSVField(r.Condition), r.Trials, r.Calls, r.Input, r.Cached, r.Output,
			csvOpt(r.CostUSD), r.UserCalls, r.UserTokens, r.JudgeCalls, r.JudgeTokens)
	}
}

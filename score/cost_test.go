package score

import (
	"testing"

	"github.com/swetouch/swetouch/result"
)

// TestCosts: the agent's traffic summed by agent and condition, the cost
// only where every trial's price was known, the user model apart.
func TestCosts(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	run := func(agent string, mu *result.ModelUsage, um *result.UserModelUsage) Trial {
		return Trial{Result: result.Run{AgentName: agent, Condition: "vanilla", ModelUsage: mu, UserModel: um}}
	}
	tok := result.Tokens{Calls: 2, Input: 100, Cached: 40, Output: 10}
	rows := Costs([]Trial{
		run("a", &result.ModelUsage{Tokens: tok, CostUSD: usd(0.5)}, &result.UserModelUsage{Calls: 1, PromptTokens: 30, CompletionTokens: 5}),
		run("a", &result.ModelUsage{Tokens: tok, CostUSD: usd(0.25)}, nil),
		run("b", &result.ModelUsage{Tokens: tok, CostUSD: usd(1)}, nil),
		run("b", &result.ModelUsage{Tokens: tok}, nil), // a model without a price
		run("c", nil, nil),
		{Result: result.Run{AgentName: "a", Condition: "vanilla", Conversation: &result.Conversation{Models: map[string]result.UserModelUsage{
			"phrase": {Calls: 2, PromptTokens: 10, CompletionTokens: 2}, "judge": {Calls: 3, PromptTokens: 30}, "reviewer": {Calls: 3, PromptTokens: 20, CompletionTokens: 5}}}}},
	})
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	a, b := rows[0], rows[1]
	if a.Trials != 2 || a.Calls != 4 || a.Input != 200 || a.Cached != 80 || a.Output != 20 || a.CostUSD == nil || *a.CostUSD != 0.75 || a.UserCalls != 3 || a.UserTokens != 47 || a.JudgeCalls != 6 || a.JudgeTokens != 55 {
		t.Errorf("a: %+v", a)
	}
	if b.Trials != 2 || b.CostUSD != nil {
		t.Errorf("b: %+v (a trial without a price makes the sum unknown)", b)
	}
}

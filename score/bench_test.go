package score

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// synthetic are n trials: 4 agents × 2 conditions × tasks × 5 runs,
// a fifth of them conversations, with verdicts drawn from a seed.
func synthetic(n int) []Trial {
	r := rand.New(rand.NewPCG(1, 2))
	agents, conds := []string{"a", "b", "c", "d"}, []string{"vanilla", "counter-edit"}
	perCell := n / (len(agents) * len(conds))
	var out []Trial
	for ai, a := range agents {
		for _, c := range conds {
			for i := 0; i < perCell; i++ {
				task := fmt.Sprintf("t%03d", i/5)
				ok := r.Float64() < 0.3+0.1*float64(ai)
				res := result.Run{AgentName: a, Condition: c, Task: task, Resolved: &ok}
				if i%5 == 0 && c == "vanilla" {
					res.Task = "conv-" + task
					turn := 1 + r.IntN(5)
					res.Conversation = &result.Conversation{Budget: 5, WeightedTurns: float64(turn) - 0.5}
					if ok {
						res.ResolvedTurn = &turn
					}
				}
				out = append(out, Trial{Result: res})
			}
		}
	}
	return out
}

// BenchmarkScore: every figure of 10,000 trials, the bootstrap's 10,000
// resamples and the permutation tests included (the target: well under
// a second).
func BenchmarkScore(b *testing.B) {
	trials := synthetic(10000)
	b.ResetTimer()
	for b.Loop() {
		Summarize(trials)
		TurnRows(trials)
		Comparisons(trials)
	}
}

package score

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

func usage(calls, in, out int) *result.ModelUsage {
	return &result.ModelUsage{Tokens: result.Tokens{Calls: calls, Input: in, Output: out}}
}

// TestPaperRows against figures worked by hand: steps are model calls
// over the trials the recorder counted (the calls answered, else the
// step budget's count), shell actions over all; the token ratio is a mean over
// tasks of condition ÷ vanilla; the revision rate is removed or replaced
// over landed edits.
func TestPaperRows(t *testing.T) {
	tr := func(task, cond string, steps, calls int, mu *result.ModelUsage, fate string) Trial {
		return Trial{Result: result.Run{AgentName: "a", Task: task, Condition: cond, Steps: steps, ModelCalls: calls, ModelUsage: mu}, Fate: fate}
	}
	trials := []Trial{
		tr("t1", "vanilla", 4, 11, usage(10, 1000, 100), ""), // the budget's 11th call refused: 10 answered
		tr("t2", "vanilla", 6, 0, usage(20, 2000, 200), ""),
		tr("t5", "vanilla", 5, 30, nil, ""), // a budget's count without the usage
		tr("t3", "vanilla", 5, 0, nil, ""),
		tr("t1", "counter-edit", 8, 15, usage(15, 1650, 0), Retained),
		tr("t2", "counter-edit", 10, 0, usage(30, 1100, 0), Replaced),
		tr("t3", "counter-edit", 3, 0, nil, Removed),
		tr("t4", "counter-edit", 7, 0, nil, ""),
	}
	rows := PaperRows(trials)
	show := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprintf("%.3f", *p)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s calls %s %d/%d shell %.2f tokens %s ratio %s/%d revised %s %d/%d", r.Condition, show(r.ModelCalls), r.Counted, r.Trials,
			r.ShellActions, show(r.Tokens), show(r.TokensVsVanilla), r.TokenTasks, show(r.RevisionRate), r.Revised, r.Landed))
	}
	want := []string{
		// (10+20+30)/3; (4+6+5+5)/4; (1100+2200)/2
		"vanilla calls 20.000 3/4 shell 5.00 tokens 1650.000 ratio nil/0 revised nil 0/0",
		// (15+30)/2; (8+10+3+7)/4; (1650+1100)/2; (1650/1100 + 1100/2200)/2 = 1; 2 of 3
		"counter-edit calls 22.500 2/4 shell 7.00 tokens 1375.000 ratio 1.000/2 revised 0.667 2/3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRevisionCorrelations: ranks of the revision rate (1 2 3) against
// Δ's (1 3 2): Σd² = 2, ρ = 1 − 12/24 = 0.5; two agents leave ρ
// undefined.
func TestRevisionCorrelations(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []Row{{Agent: "a", Condition: "counter-edit", Delta: f(-0.3)}, {Agent: "b", Condition: "counter-edit", Delta: f(-0.1)}, {Agent: "c", Condition: "counter-edit", Delta: f(-0.2)},
		{Agent: "a", Condition: "co-edit", Delta: f(0)}, {Agent: "b", Condition: "co-edit", Delta: f(0.1)}}
	paper := []PaperRow{{Agent: "a", Condition: "counter-edit", RevisionRate: f(0.2)}, {Agent: "b", Condition: "counter-edit", RevisionRate: f(0.5)}, {Agent: "c", Condition: "counter-edit", RevisionRate: f(0.9)},
		{Agent: "a", Condition: "co-edit", RevisionRate: f(0.1)}, {Agent: "b", Condition: "co-edit", RevisionRate: f(0.2)}}
	cors := RevisionCorrelations(rows, paper)
	if len(cors) != 2 || cors[0].Condition != "counter-edit" || cors[0].Rho == nil || fmt.Sprintf("%.3f", *cors[0].Rho) != "0.500" || cors[0].Agents != 3 {
		t.Fatalf("counter-edit: %+v", cors)
	}
	if cors[1].Rho != nil || cors[1].Agents != 2 {
		t.Errorf("co-edit over two agents: %+v", cors[1])
	}
}

// TestPatchSizes: lines are added plus removed within hunks (a removed
// "-- x" is a line), files counted once across a record's edits; a
// Verified record's three identical edits count once, a Pro record's
// edits together.
func TestPatchSizes(t *testing.T) {
	one := "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n x\n--- y\n+++ z\n w\n"
	two := "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -5 +5,2 @@\n-p\n+q\n+r\n" +
		"diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+s\n"
	if s := SizeOf(one); s != (PatchSize{2, 1}) {
		t.Errorf("SizeOf(one) = %+v, want 2 lines 1 file", s)
	}
	if s := SizeOf(one, two); s != (PatchSize{6, 2}) {
		t.Errorf("SizeOf(one, two) = %+v, want 6 lines 2 files", s)
	}
	rows := PatchSizes([]SizeInput{
		{Benchmark: "swe_bench_verified", Counter: []string{one, one, one}, Reference: two},
		{Benchmark: "swe_bench_verified", Counter: []string{two, two, two}},
		{Benchmark: "swe_bench_verified"}, // message-only
		{Benchmark: "swe_bench_pro", Counter: []string{one, two, one}, Reference: one},
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s %d %.2f %.2f %d %.2f %.2f\n", r.Benchmark, r.Records, r.CounterLine, r.CounterFile, r.References, r.RefLine, r.RefFile)
	}
	// verified: (2+4)/2 lines, (1+2)/2 files; its one reference 4 lines
	// 2 files. pro: 2+4+2 lines, files a.py and n.py
	want := "swe_bench_verified 2 3.00 1.50 1 4.00 2.00\nswe_bench_pro 1 8.00 2.00 1 2.00 1.00\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}

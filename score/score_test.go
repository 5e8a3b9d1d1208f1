package score

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// write puts a run's result.json under root/name.
func write(t *testing.T, root, name, task, cond string, resolved *bool) {
	t.Helper()
	d := filepath.Join(root, name)
	os.MkdirAll(d, 0o755)
	b, _ := json.Marshal(result.Run{Task: task, Condition: cond, AgentName: "a", Resolved: resolved, Steps: 4})
	if err := os.WriteFile(filepath.Join(d, "result.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSummarize: runs from two machines merge; a null result is counted
// apart, not as a failure; the rate's mean and sd are over runs; retention
// counts the tasks vanilla majority-solves that the condition still does,
// among those with two scored runs on each side.
func TestSummarize(t *testing.T) {
	yes, no := true, false
	m1, m2 := t.TempDir(), t.TempDir()
	// vanilla: t1 solved 2/2, t2 solved 2/2
	write(t, m1, "v-t1-r0", "t1", "vanilla", &yes)
	write(t, m2, "v-t1-r1", "t1", "vanilla", &yes)
	write(t, m1, "v-t2-r0", "t2", "vanilla", &yes)
	write(t, m2, "v-t2-r1", "t2", "vanilla", &yes)
	// counter-edit: t1 solved 2/2; t2 failed once and once null
	write(t, m1, "c-t1-r0", "t1", "counter-edit", &yes)
	write(t, m2, "c-t1-r1", "t1", "counter-edit", &yes)
	write(t, m1, "c-t2-r0", "t2", "counter-edit", &no)
	write(t, m2, "c-t2-r1", "t2", "counter-edit", nil)
	trials, err := Load(m1, m2)
	if err != nil {
		t.Fatal(err)
	}
	rows := Summarize(trials)
	if len(rows) != 2 || rows[0].Condition != "vanilla" {
		t.Fatalf("rows %+v", rows)
	}
	ce := rows[1]
	got := fmt.Sprintf("%d %d %d %.2f %.2f %.2f %.2f", ce.Trials, ce.Resolved, ce.Unknown, ce.Rate, ce.RateSD, *ce.Delta, *ce.Retention)
	// runs: run 0 solved 1 of 2 (0.5), run 1 solved 1 of 1 (1.0)
	// retention: t2 has one scored run under counter-edit, no majority,
	// so only t1 counts (kept)
	if want := "4 2 1 0.75 0.35 -0.25 1.00"; got != want {
		t.Errorf("counter-edit row %s, want %s", got, want)
	}
	var csv strings.Builder
	WriteCSV(&csv, rows)
	if !strings.Contains(csv.String(), "a,counter-edit,2,2,4,2,1,0.7500,0.3536,0.0000,1.0000,-0.2500,-1.0000,0.0000,1.0000,1.0000,1.0000,") {
		t.Errorf("csv:\n%s", csv.String())
	}
}

// TestNoVanilla: an agent with no vanilla trials has no Δ (not +0 pp)
// and no rank; it takes no place from the agents that have both.
func TestNoVanilla(t *testing.T) {
	rows := []Row{}
	for _, r := range []struct {
		agent, cond string
		rate        float64
	}{{"a", "vanilla", 1}, {"a", "counter-edit", 0.5}, {"b", "vanilla", 0.5}, {"b", "counter-edit", 0.25}, {"c", "counter-edit", 1}} {
		rows = append(rows, Row{Agent: r.agent, Condition: r.cond, Rate: r.rate, Trials: 1})
	}
	ranks := Ranks(rows)
	for _, rc := range ranks {
		if rc.Agent == "c" {
			t.Errorf("agent c, with no vanilla trials, is ranked: %+v", rc)
		}
		if rc.Agent == "a" && rc.Rank != 1 || rc.Agent == "b" && rc.Rank != 2 {
			t.Errorf("rank %+v: c took a place", rc)
		}
	}
	d, no := t.TempDir(), false
	write(t, d, "c-t1", "t1", "counter-edit", &no)
	trials, _ := Load(d)
	sum := Summarize(trials)
	var table strings.Builder
	WriteTable(&table, sum)
	if sum[0].Delta != nil || strings.Contains(table.String(), " pp") {
		t.Errorf("Δ without vanilla: %v\n%s", sum[0].Delta, table.String())
	}
}

// TestExposure: a trial is exposed when an edit was applied or a message
// delivered (a Counter-Edit that could not land still delivers); the rate
// over exposed trials is a mean over tasks, beside the raw one; a row
// none of whose trials was exposed, and vanilla, have none.
func TestExposure(t *testing.T) {
	yes, no := true, false
	run := func(task, cond string, resolved *bool, applied, delivered int) Trial {
		return Trial{Result: result.Run{Task: task, Condition: cond, AgentName: "a", Resolved: resolved, Applied: applied, Delivered: delivered}}
	}
	rows := Summarize([]Trial{
		run("t1", "vanilla", &yes, 0, 0),
		run("t1", "counter-edit", &yes, 1, 1), // exposed, resolved
		run("t1", "counter-edit", &no, 0, 1),  // its edit failed to land, its message went
		run("t2", "counter-edit", &no, 1, 0),  // code-only: applied
		run("t3", "counter-edit", &yes, 0, 0), // steered clear
		run("t3", "counter-edit", nil, 1, 1),  // no verdict: not counted
		run("t1", "message-only", &yes, 0, 0),
	})
	if len(rows) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	van, ce, mo := rows[0], rows[1], rows[2]
	if van.Exposed != 0 || van.ExposedRate != nil {
		t.Errorf("vanilla exposed %d, rate %v", van.Exposed, van.ExposedRate)
	}
	// exposed: t1 1 of 2, t2 0 of 1: a mean over tasks of 0.25
	if ce.Exposed != 3 || ce.ExposedRate == nil || *ce.ExposedRate != 0.25 || ce.ExposedRateCI == nil {
		t.Errorf("counter-edit exposed %d, rate %v (%v), want 3 and 0.25", ce.Exposed, ce.ExposedRate, ce.ExposedRateCI)
	}
	if mo.Exposed != 0 || mo.ExposedRate != nil {
		t.Errorf("message-only with nothing delivered: exposed %d, rate %v", mo.Exposed, mo.ExposedRate)
	}
	var table strings.Builder
	WriteTable(&table, rows)
	if !strings.Contains(table.String(), "3/4") || !strings.Contains(table.String(), "25.0% [") {
		t.Errorf("table:\n%s", table.String())
	}
}

// TestNullRowsShowNoFigure (issue 50): a row whose every trial was null
// (a real agent run with no model) prints "–" for its rate and its Δ,
// not 0.0% and +0.0 pp, and so does a conversation row.
func TestNullRowsShowNoFigure(t *testing.T) {
	yes := true
	var trials []Trial
	for _, task := range []string{"t1", "t2"} {
		trials = append(trials,
			Trial{Result: result.Run{AgentName: "a", Condition: "vanilla", Task: task, Resolved: &yes, Sandbox: "bwrap"}},
			Trial{Result: result.Run{AgentName: "a", Condition: "counter-edit", Task: task, Sandbox: "bwrap"}},
			Trial{Result: result.Run{AgentName: "a", Condition: "vanilla", Task: "c" + task, Sandbox: "bwrap",
				Conversation: &result.Conversation{Budget: 3}}})
	}
	rows := Summarize(trials)
	var b strings.Builder
	WriteTable(&b, rows)
	var ce string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "counter-edit") {
			ce = l
		}
	}
	if rows[1].Delta != nil || strings.Contains(ce, "0.0%") || strings.Contains(ce, "pp") || !strings.Contains(ce, "0/0 (+2 null)") {
		t.Errorf("the null row: %q (Δ %v)\n%s", ce, rows[1].Delta, b.String())
	}
	b.Reset()
	WriteTurnTable(&b, TurnRows(trials))
	if strings.Contains(b.String(), "0.0%") || strings.Contains(b.String(), "0.000") || !strings.Contains(b.String(), "(+2 without a verdict)") {
		t.Errorf("the null conversation row:\n%s", b.String())
	}
}

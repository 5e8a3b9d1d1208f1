package score

import (
	"fmt"
	"testing"
)

// TestRetentionNeedsTwoRuns: a task scored once, under vanilla or under
// the condition, is no majority and leaves retention's denominator. By
// hand: t1 solved 2/2 under both (kept); t2 2/2 under vanilla, 0/2 under
// counter-edit (lost); t3 1/1 scored under vanilla (the other run null)
// and t4 1/1 under counter-edit: both left out. Retention 1/2 = 0.50
// (counting single runs it was 3/4 = 0.75).
func TestRetentionNeedsTwoRuns(t *testing.T) {
	yes, no := true, false
	d := t.TempDir()
	for _, w := range []struct {
		name, task, cond string
		res              *bool
	}{
		{"v1a", "t1", "vanilla", &yes}, {"v1b", "t1", "vanilla", &yes},
		{"c1a", "t1", "counter-edit", &yes}, {"c1b", "t1", "counter-edit", &yes},
		{"v2a", "t2", "vanilla", &yes}, {"v2b", "t2", "vanilla", &yes},
		{"c2a", "t2", "counter-edit", &no}, {"c2b", "t2", "counter-edit", &no},
		{"v3a", "t3", "vanilla", &yes}, {"v3b", "t3", "vanilla", nil},
		{"c3a", "t3", "counter-edit", &yes}, {"c3b", "t3", "counter-edit", &yes},
		{"v4a", "t4", "vanilla", &yes}, {"v4b", "t4", "vanilla", &yes},
		{"c4a", "t4", "counter-edit", &yes},
	} {
		write(t, d, w.name, w.task, w.cond, w.res)
	}
	trials, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	rows := Summarize(trials)
	ce := rows[1]
	if ce.Condition != "counter-edit" || ce.Retention == nil {
		t.Fatalf("rows %+v", rows)
	}
	if got := fmt.Sprintf("%.2f", *ce.Retention); got != "0.50" {
		t.Errorf("retention %s, want 0.50 (t1 kept, t2 lost; t3 and t4 scored once on a side)", got)
	}
}

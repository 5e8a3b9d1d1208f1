package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/policy"
)

// unrecorded are the names of the tasks that have no record, when some
// condition of cfg needs one, each warned of on progress: their trials
// under such a condition are skipped, since they would run vanilla under
// the condition's name (issue 50). A task whose records cannot be read
// is not skipped: its trials say why, as before; nor is any without
// cfg.Records to ask (its trials run where the records are).
func unrecorded(cfg Config) map[string]bool {
	var needing []string
	for _, c := range cfg.Conditions {
		if c.NeedsRecord() {
			needing = append(needing, string(c))
		}
	}
	if len(needing) == 0 || cfg.Records == nil {
		return nil // no records to ask: each trial says what it lacks
	}
	skip := map[string]bool{}
	for _, t := range cfg.Tasks {
		if r, err := cfg.Records(t); r != nil || err != nil {
			continue
		}
		skip[t.Name] = true
		fmt.Fprintf(orDiscard(cfg.Progress), "swetouch eval: warning: skipping %s's %s trials: the task has no record (no records.jsonl, and no --records), so they would run vanilla\n",
			t.Name, strings.Join(slices.Compact(needing), ", "))
	}
	return skip
}

// skipped reports whether the trial of condition c on task name is one
// unrecorded skips.
func skipped(skip map[string]bool, c policy.Condition, name string) bool {
	return c.NeedsRecord() && skip[name]
}

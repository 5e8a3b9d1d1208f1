package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
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
	skip := map[string]bool{}
	if slices.Contains(cfg.Conditions, policy.ClearCorrect) {
		for _, t := range cfg.Tasks {
			if c, err := clearCorrect(cfg, t); c == nil && err == nil {
				skip[clearCorrectKey+t.Name] = true
				fmt.Fprintf(orDiscard(cfg.Progress), "swetouch eval: warning: skipping %s's clear-correct trials: it is a single-turn task, with no conversation's user to make clear\n", t.Name)
			}
		}
	}
	if len(needing) == 0 || cfg.Records == nil {
		return skip // no records to ask: each trial says what it lacks
	}
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
	return c.NeedsRecord() && skip[name] || c == policy.ClearCorrect && skip[clearCorrectKey+name]
}

// clearCorrectKey marks, in unrecorded's set, a task the clear-correct
// condition skips: a single-turn one, with no user to make clear.
const clearCorrectKey = "\x00clear-correct\x00"

// clearCorrect is t's conversation under the clear-correct condition
// (nil: a single-turn task).
func clearCorrect(cfg Config, t *task.Task) (*run.Conversation, error) {
	if cfg.ClearCorrect == nil {
		return nil, nil
	}
	return cfg.ClearCorrect(t)
}

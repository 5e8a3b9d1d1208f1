package eval

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

// TestNullRetried: a trial whose agent could not start (the machine's
// doing: no verdict) runs again, and its verdict is the second attempt's;
// the null attempt is kept beside it where no score reads it. With no
// retries the null stands.
func TestNullRetried(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(filepath.Join("..", "examples", "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	plans, _ := filepath.Abs(filepath.Join("..", "examples", "agents"))
	for _, retries := range []int{1, 0} {
		var calls atomic.Int32
		agent := Agent{Name: "careful", Start: func(t *task.Task, scratch, modelURL string) (agents.Invocation, error) {
			if calls.Add(1) == 1 {
				return agents.Command([]string{"/nonexistent/agent"}...), nil
			}
			return agents.Command([]string{filepath.Join(bin, "swetouch"), "agent", "script", "--plan", filepath.Join(plans, t.Name+".json"), "--behaviour", "careful"}...), nil
		}}
		out := t.TempDir()
		cfg := Config{Tasks: []*task.Task{tk}, Agents: []Agent{agent}, Conditions: []policy.Condition{policy.Vanilla},
			Runs: 1, Concurrency: 1, RetryNull: retries, Out: out, Shim: filepath.Join(bin, "swetouch-shim")}
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		trials, err := score.Load(out)
		if err != nil || len(trials) != 1 {
			t.Fatalf("retries %d: %d trials (%v), want 1", retries, len(trials), err)
		}
		r := trials[0].Result
		kept := filepath.Join(trials[0].Dir+".null-1", "null-result.json")
		_, keptErr := os.Stat(kept)
		switch retries {
		case 1:
			if r.Resolved == nil || !*r.Resolved || len(r.NullRetries) != 1 || keptErr != nil {
				t.Errorf("retried: resolved %v, null retries %q, the null attempt kept: %v", r.Resolved, r.NullRetries, keptErr)
			}
		case 0:
			if r.Resolved != nil || len(r.NullRetries) != 0 || keptErr == nil {
				t.Errorf("not retried: resolved %v, null retries %q", r.Resolved, r.NullRetries)
			}
		}
	}
}

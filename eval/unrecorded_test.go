package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// TestUnrecordedTaskSkipped (issue 50): eval of a task without a record
// under vanilla and counter-edit runs the vanilla trial alone and warns,
// naming the task; before, it also ran a "counter-edit" trial whose
// result.json said vanilla, which score merged into the vanilla row.
func TestUnrecordedTaskSkipped(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "swetouch")
	tk, err := task.Load(filepath.Join("..", "examples", "tasks", "py-slugify"))
	if err != nil {
		t.Fatal(err)
	}
	plans, _ := filepath.Abs(filepath.Join("..", "examples", "agents"))
	naive := Agent{Name: "naive", Start: func(t *task.Task, scratch, modelURL string) (agents.Invocation, error) {
		return agents.Command([]string{exe, "agent", "script", "--plan", filepath.Join(plans, t.Name+".json"), "--behaviour", "naive"}...), nil
	}}
	out := t.TempDir()
	var progress bytes.Buffer
	cfg := Config{Tasks: []*task.Task{tk}, Agents: []Agent{naive}, Conditions: []policy.Condition{policy.Vanilla, policy.CounterEdit},
		Runs: 1, Out: out, Shim: filepath.Join(bin, "swetouch-shim"), Progress: &progress,
		Records: func(*task.Task) (*task.Record, error) { return nil, nil }}
	n, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || !strings.Contains(progress.String(), "skipping py-slugify's counter-edit trials: the task has no record") {
		t.Errorf("ran %d trials\n%s", n, progress.String())
	}
	if _, err := os.Stat(filepath.Join(out, "naive", "counter-edit")); err == nil {
		t.Error("a counter-edit trial ran without a record")
	}
	if _, err := os.Stat(filepath.Join(out, "naive", "vanilla", "py-slugify", "run-0", "result.json")); err != nil {
		t.Errorf("the vanilla trial: %v", err)
	}
}

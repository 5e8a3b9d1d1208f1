package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
)

// TestConditionWithoutRecord (issue 50): a run under counter-edit with
// no record does not start (a NoRecordError, no result.json); before, it
// ran vanilla, and eval filed it under counter-edit.
func TestConditionWithoutRecord(t *testing.T) {
	tk, err := task.Load(filepath.Join("..", "examples", "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err = run.Trial(context.Background(), run.Config{Task: tk, Condition: policy.CounterEdit, Out: out, Agent: agents.Command("/bin/true")})
	var nr *run.NoRecordError
	if !errors.As(err, &nr) || nr.Condition != policy.CounterEdit || nr.Task != "py-discount" {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); err == nil {
		t.Error("a result.json was written")
	}
}

package run_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
)

// TestStepLimitEndsTheAgent: an agent that would go on forever, its
// budget of one model call spent twice, is ended: result.json says
// stopped: step_limit with the calls counted, not a time-out, and the
// verdict is still the workspace's (false: nothing was fixed), never
// "no verdict".
func TestStepLimitEndsTheAgent(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	steps := run.NewStepBudget(1)
	if !steps.Call() || steps.Call() {
		t.Fatal("a budget of one call admitted the second")
	}
	res, err := run.Trial(context.Background(), run.Config{Task: tk, Out: t.TempDir(), Steps: steps,
		Shim: filepath.Join(binDir, "swetouch-shim"), Agent: agents.Command("/bin/sh", "-c", "while :; do read -t 1 x; done")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != run.StoppedStepLimit || res.ModelCalls != 2 || res.AgentTimedOut {
		t.Errorf("stopped %q after %d calls (timed out %v)", res.Stopped, res.ModelCalls, res.AgentTimedOut)
	}
	if res.Resolved == nil || *res.Resolved {
		t.Errorf("resolved %v (%s), want false", res.Resolved, res.Reason)
	}
}

package eval

import (
	"context"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

// Spec is one trial as Config.Elsewhere runs it: out of this process, in
// a container of its task's image (eval --runtime), where a whole
// `swetouch run` of its own starts the agent, the user and the verifier.
type Spec struct {
	Agent     string
	Condition policy.Condition
	Task      *task.Task
	// Dir is the trial's folder, which the run writes whole.
	Dir string
	// Steps is the fraction schedule's S, taken from the trial's
	// vanilla pair (0: no fraction schedule, or a vanilla trial).
	Steps int
}

// Elsewhere runs one trial out of process and returns its result.json:
// a trial that never ran (its image missing, its container failing to
// start) has a result without a verdict saying why, never false.
type Elsewhere func(ctx context.Context, s Spec) (*result.Run, error)

package run

import (
	"errors"
	"sync"
	"sync/atomic"
)

// StepBudget is a trial's limit on its agent's steps, counted as the
// papers count them: model calls, seen where swetouch sees them (the
// recorder of --model-upstream calls Call for each). Past the limit the
// agent is ended as at its time limit, its verdict still taken from the
// workspace, and result.json says stopped: step_limit.
type StepBudget struct {
	limit    int64
	calls    atomic.Int64
	once     sync.Once
	exceeded chan struct{}
}

// NewStepBudget is a budget of n model calls (n <= 0: none, and a nil
// budget).
func NewStepBudget(n int) *StepBudget {
	if n <= 0 {
		return nil
	}
	return &StepBudget{limit: int64(n), exceeded: make(chan struct{})}
}

// Call counts one model call and reports whether it is within the
// budget; the first call past it ends the agent.
func (b *StepBudget) Call() bool {
	if b == nil {
		return true
	}
	if b.calls.Add(1) <= b.limit {
		return true
	}
	b.once.Do(func() { close(b.exceeded) })
	return false
}

// Limit is the budget's model calls (0 for no budget).
func (b *StepBudget) Limit() int {
	if b == nil {
		return 0
	}
	return int(b.limit)
}

// Calls is how many model calls were counted.
func (b *StepBudget) Calls() int {
	if b == nil {
		return 0
	}
	return int(b.calls.Load())
}

// Exceeded is closed once a call went past the budget (nil for none,
// which never is).
func (b *StepBudget) Exceeded() <-chan struct{} {
	if b == nil {
		return nil
	}
	return b.exceeded
}

// errStepLimit is the cause of the agent's context at its step limit.
var errStepLimit = errors.New("the agent reached its step limit")

// StoppedStepLimit is result.json's stopped for a trial whose agent was
// ended at its step limit.
const StoppedStepLimit = "step_limit"

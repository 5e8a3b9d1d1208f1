package run

import (
	"fmt"

	"github.com/swetouch/swetouch/policy"
)

// NoRecordError is a run under a condition that acts from a record given
// none: it would have run vanilla while its caller labelled it the
// condition (issue 50), so it does not start.
type NoRecordError struct {
	Condition policy.Condition
	Task      string
}

func (e *NoRecordError) Error() string {
	return fmt.Sprintf("condition %s needs a record of task %s (dataset-record-v1), and none was given; run it as vanilla", e.Condition, e.Task)
}

// checkCondition refuses a condition that needs a record the run lacks.
func checkCondition(cfg Config) error {
	if cfg.Record == nil && cfg.Condition.NeedsRecord() {
		return &NoRecordError{Condition: cfg.Condition, Task: cfg.Task.Name}
	}
	return nil
}

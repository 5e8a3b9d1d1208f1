package run

import (
	"context"
	"time"

	"github.com/swetouch/swetouch/result"
)

// probeFailed asks cfg.Probe whether the agent's model can be reached
// before anything is set up; when it cannot, the run ends at once,
// resolved null with the reason (an infrastructure error, as an agent's
// own report of an unreachable model is), and its result is written.
func probeFailed(ctx context.Context, cfg Config, res *result.Run, start time.Time) (bool, error) {
	if cfg.Probe == nil {
		return false, nil
	}
	err := cfg.Probe(ctx)
	if err == nil {
		return false, nil
	}
	res.Reason = "the agent never reached its model: " + err.Error()
	return true, writeResult(cfg.Out, res, start)
}

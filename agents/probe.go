package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ProbeTimeout is how long ProbeModel waits for an endpoint's answer.
const ProbeTimeout = 5 * time.Second

// ProbeModel asks a model endpoint one plain request before an agent is
// started on it: any HTTP answer, whatever its status, says something
// listens there. An endpoint that refuses the connection, or does not
// answer within timeout, would cost the agent minutes of its own
// retries before it gave up (181 s for Claude Code on a closed port), so
// the run ends at once instead, with this error as its reason.
func ProbeModel(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("the model endpoint %s: %v", url, err)
	}
	// a client of its own: no proxy from the environment, no redirects
	// followed (an answer is an answer)
	c := &http.Client{Transport: &http.Transport{}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the model endpoint %s did not answer within %s", url, timeout)
	case err != nil:
		return fmt.Errorf("the model endpoint %s cannot be reached: %v", url, errors.Unwrap(err))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return nil
}

package e2e_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// TestUnreached: an agent whose endpoint refuses its key, or that has no
// login, never reaches a model. The run is an infrastructure error (resolved null, with the
// agent's own words for why), not a failure of the agent's, and
// agent.log keeps what the agent printed.
func TestUnreached(t *testing.T) {
	testsupport.Slow(t)
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","code":401,"status":"UNAUTHENTICATED","message":"invalid api key"}}`))
	}))
	defer refuse.Close()
	for _, a := range realAgents(t) {
		agent := a.Name
		t.Run(agent, func(t *testing.T) {
			p, bin, err := agents.Find(agent)
			if err != nil {
				testsupport.Missing(t, testsupport.Agents, "%s is not installed: %v", agent, err)
			}
			tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
			scratch, out := t.TempDir(), t.TempDir()
			url := refuse.URL
			if agent == "claude" {
				url = "" // it retries a refused key for minutes; "Not logged in" it reports at once
			}
			st, err := p.Start(agents.Launch{Bin: bin, ModelURL: url, Swetouch: filepath.Join(shimDir, "swetouch"), Scratch: scratch})
			if err != nil {
				t.Fatal(err)
			}
			if agent == "claude" {
				st.Env = append(st.Env, "ANTHROPIC_API_KEY=", "ANTHROPIC_AUTH_TOKEN=")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*60e9)
			defer cancel()
			res, err := run.Trial(ctx, run.Config{Task: tk, Condition: policy.Vanilla, Out: out, Shim: filepath.Join(shimDir, "swetouch-shim"),
				Agent: st, Scratch: []string{scratch}})
			if err != nil {
				t.Fatal(err)
			}
			log, _ := os.ReadFile(filepath.Join(out, run.AgentLog))
			if res.Resolved != nil || !strings.HasPrefix(res.Reason, "the agent never reached its model: ") {
				t.Errorf("resolved %v, reason %q; agent.log:\n%.2000s", showResolved(res.Resolved), res.Reason, log)
			}
			if len(log) == 0 {
				t.Errorf("agent.log is empty")
			}
			t.Logf("%s: %s", agent, res.Reason)
		})
	}
}

func showResolved(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}

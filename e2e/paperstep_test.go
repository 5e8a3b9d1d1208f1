package e2e_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/run"
)

// TestPaperStepLimit: a run of a released record gets the step budget the
// paper ran its benchmark with when --step-limit is not given (100 model
// calls on SWE-bench Verified, mini-swe-agent's scaffold as the paper's):
// a model script that would go on for 105 calls is ended at the 101st,
// result.json saying so; a --step-limit given wins over it.
func TestPaperStepLimit(t *testing.T) {
	exe, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := agents.Find("mini-swe-agent"); err != nil {
		testsupport.Missing(t, testsupport.Agents, "mini-swe-agent is not installed (scripts/install-agents.sh): %v", err)
	}
	var turns []string
	for range 105 {
		turns = append(turns, `{"calls": [{"name": "@shell", "args": {"command": "true"}}]}`)
	}
	turns = append(turns, `{"calls": [{"name": "@shell", "args": {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}}]}`)
	script := filepath.Join(t.TempDir(), "loop.script.json")
	if err := os.WriteFile(script, []byte(`{"turns": [`+strings.Join(turns, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := modelserver.LoadScript(script)
	if err != nil {
		t.Fatal(err)
	}
	tdir := filepath.Join(examplesDir, "tasks", "py-discount")
	recs, err := os.ReadFile(filepath.Join(tdir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	verified := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(verified, []byte(strings.Replace(string(recs), `"benchmark": "local"`, `"benchmark": "swe_bench_verified"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name         string
		flags        []string
		limit, calls int
	}{
		{"swe_bench_verified's 100", nil, 100, 101},
		{"--step-limit 3 wins", []string{"--step-limit", "3"}, 3, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(modelserver.NewServer(s, nil))
			defer ts.Close()
			out := t.TempDir()
			args := append([]string{"run", "--task", tdir, "--records", verified, "--condition", "vanilla",
				"--agent", "mini-swe-agent", "--model-url", ts.URL, "--out", out}, tt.flags...)
			got, _ := exec.Command(filepath.Join(exe, "swetouch"), args...).CombinedOutput()
			res, err := result.Read(filepath.Join(out, result.File))
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			if res.StepLimit != tt.limit || res.Stopped != run.StoppedStepLimit || res.ModelCalls != tt.calls || res.Resolved == nil {
				t.Errorf("step_limit %d, stopped %q after %d calls, resolved %v (%s); want %d, step_limit after %d and a verdict\n%s",
					res.StepLimit, res.Stopped, res.ModelCalls, res.Resolved, res.Reason, tt.limit, tt.calls, tail(string(got), 2000))
			}
		})
	}
}

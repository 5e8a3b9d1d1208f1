package e2e_test

import (
	"bufio"
	"math"
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
)

// TestModelUpstream: `run --model-upstream` puts a recorder between
// Claude Code and its provider (here the scripted model server): every
// call the provider answered is counted with its tokens, priced from
// --prices, and written to the run folder's cassette, which replays the
// run without the provider.
func TestModelUpstream(t *testing.T) {
	testsupport.Slow(t)
	p, bin, srv, modelURL := scriptedClaude(t, filepath.Join(examplesDir, "agents", "claude", "py-discount.script.json"))
	prices := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(prices, []byte(`{"claude-sonnet-4-5": {"input": 3, "cached_input": 0.3, "output": 15}}`), 0o644)
	out := t.TempDir()
	task, _ := filepath.Abs(filepath.Join(examplesDir, "tasks", "py-discount"))
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--task", task, "--out", out, "--agent", p.Name, "--model-upstream", modelURL, "--prices", prices)
	cmd.Env = append(os.Environ(), "IS_SANDBOX=1")
	if got, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, got)
	}
	res, err := result.Read(filepath.Join(out, result.File))
	if err != nil {
		t.Fatal(err)
	}
	mu, calls := res.ModelUsage, len(srv.Exchanges())
	// the scripted server counts one input and one output token a call
	if mu == nil || mu.Calls != calls || mu.Input != calls || mu.Output != calls || mu.CostUSD == nil ||
		math.Abs(*mu.CostUSD-float64(calls)*(3+15)/1e6) > 1e-12 {
		t.Fatalf("model usage %+v for %d calls", mu, calls)
	}
	f, err := os.Open(filepath.Join(out, mu.Cassette))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for ; sc.Scan(); lines++ {
	}
	if lines != calls {
		t.Errorf("the cassette holds %d calls, the provider answered %d", lines, calls)
	}
	rep := exec.Command(filepath.Join(bin, "swetouch"), "replay", filepath.Join(out, "trajectory.jsonl"), "--task", task,
		"--cassette", filepath.Join(out, mu.Cassette), "--agent", p.Name, "--check", "--out", t.TempDir())
	rep.Env = cmd.Env
	if got, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(got), "identical to the recording") {
		t.Errorf("replay against the run's cassette: %v\n%s", err, got)
	}
}

// TestEvalModelUpstream: eval gives every trial a recorder of its own:
// each trial's folder holds its cassette and its usage, and together
// they count every call the provider answered.
func TestEvalModelUpstream(t *testing.T) {
	testsupport.Slow(t)
	p, bin, srv, modelURL := scriptedClaude(t, filepath.Join(examplesDir, "agents", "claude", "py-discount.script.json"))
	tasks := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(examplesDir, "tasks", "py-discount"), filepath.Join(examplesDir, "tasks", "py-slugify"), tasks).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "eval", "--tasks", tasks, "--agent", p.Name, "--conditions", "vanilla", "--model-upstream", modelURL, "--out", out)
	cmd.Env = append(os.Environ(), "IS_SANDBOX=1")
	if got, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("eval: %v\n%s", err, got)
	}
	results, _ := filepath.Glob(filepath.Join(out, "*", "*", "*", "run-*", result.File))
	calls := 0
	for _, f := range results {
		res, err := result.Read(f)
		if err != nil || res.ModelUsage == nil || res.ModelUsage.Calls == 0 {
			t.Fatalf("%s: %v %+v", f, err, res)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(f), res.ModelUsage.Cassette)); err != nil {
			t.Errorf("%s: no cassette: %v", f, err)
		}
		calls += res.ModelUsage.Calls
	}
	if len(results) != 2 || calls != len(srv.Exchanges()) {
		t.Errorf("%d trials counted %d calls; the provider answered %d", len(results), calls, len(srv.Exchanges()))
	}
}

// TestClaudeGenerator: Claude Code, unmodified and sandboxed, plays the
// User Patch Generator against the scripted model server: it reads the
// region, edits it with its own Edit tool, runs swetouch-self-check
// (whose report reaches the model), and writes its account; the edit
// passes the gate.
func TestClaudeGenerator(t *testing.T) {
	testsupport.Slow(t)
	p, bin, srv, modelURL := scriptedClaude(t, filepath.Join(examplesDir, "agents", "claude", "generate-py-discount.script.json"))
	dir := t.TempDir()
	regions := filepath.Join(dir, "regions.json")
	os.WriteFile(regions, []byte(`{"schema_version": "1.0.0", "benchmark": "local", "instance_id": "py-discount", "regions": [{"path": "pricing.py", "start_line": 4, "end_line": 6}], "evidence": {}}`), 0o644)
	task, _ := filepath.Abs(filepath.Join(examplesDir, "tasks", "py-discount"))
	out := filepath.Join(dir, "cands.json")
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "generate", "--task", task, "--regions", regions, "--out", out, "--agent", p.Name, "--model-url", modelURL)
	cmd.Env = append(os.Environ(), "IS_SANDBOX=1")
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "attempt 1 passes the gate") {
		log, _ := os.ReadFile(filepath.Join(dir, "cands.runs", "attempt-1", "agent.log"))
		t.Fatalf("generate: %v\n%s\n%s", err, got, log)
	}
	reached := false
	for _, e := range srv.Exchanges() {
		reached = reached || strings.Contains(string(e.Request), "ok: reference alone resolves")
	}
	if !reached {
		t.Errorf("the self-check's report never reached the model")
	}
}

// scriptedClaude is Claude Code's preset, the folder of the built
// swetouch, and the scripted model server playing the script at its URL;
// the test skips without Claude Code.
func scriptedClaude(t *testing.T, script string) (*agents.Agent, string, *modelserver.Server, string) {
	t.Helper()
	p, _, err := agents.Find("claude")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "claude is not installed: %v", err)
	}
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	s, err := modelserver.LoadScript(script)
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return p, bin, srv, ts.URL
}

package e2e_test

import (
	"context"
	"encoding/json"
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
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
)

// TestMiniSWEAgentKeepsItsTrajectory: the real mini-swe-agent (PyPI
// 2.2.4), sandboxed, its model scripted: it runs its commands through
// subprocess.run(shell=True), submits, and its own trajectory is kept in
// the run folder, where replay's importer reads it with the same commands
// the script gave; each command's output is in the model's next request.
func TestMiniSWEAgentKeepsItsTrajectory(t *testing.T) {
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	p, bin, err := agents.Find("mini-swe-agent")
	if err != nil {
		t.Skipf("mini-swe-agent is not installed (scripts/install-agents.sh): %v", err)
	}
	s, err := modelserver.LoadScript(filepath.Join(examplesDir, "agents", "mini-swe-agent", "py-discount.script.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
	recs, _ := task.LoadRecords(filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"))
	swetouch := filepath.Join(shimDir, "swetouch")
	scratch, out := t.TempDir(), t.TempDir()
	inv, err := p.Start(agents.Launch{Bin: bin, ModelURL: ts.URL, Swetouch: swetouch, Scratch: scratch, Task: tk.Name})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Trial(context.Background(), run.Config{Task: tk, Record: recs[0], Condition: policy.CounterEdit, Out: out,
		Shim: filepath.Join(shimDir, "swetouch-shim"), Agent: inv, Sandbox: sandboxed(t, swetouch), Scratch: []string{scratch}, ModelURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.AgentExit != 0 || srv.Turns() != len(s.Turns) {
		log, _ := os.ReadFile(filepath.Join(out, run.AgentLog))
		t.Fatalf("agent exit %d after %d of %d scripted turns:\n%s", res.AgentExit, srv.Turns(), len(s.Turns), tail(string(log), 3000))
	}
	data, err := os.ReadFile(filepath.Join(out, agents.MiniSWETrajectory))
	if err != nil {
		t.Fatalf("its trajectory was not kept: %v", err)
	}
	imported, err := replay.ImportMiniSWEAgent(data, agents.MiniSWETrajectory, replay.ImportOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var commands []string
	for _, a := range replay.Actions(imported) {
		commands = append(commands, a.Command)
	}
	var want []string
	for _, turn := range s.Turns {
		for _, c := range turn.Calls {
			var a struct{ Command string }
			json.Unmarshal(c.Args, &a)
			want = append(want, a.Command)
		}
	}
	if strings.Join(commands, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("imported commands %q, scripted %q", commands, want)
	}
	// the model saw the first command's output in its next request
	for _, e := range srv.Exchanges() {
		if e.Turn == 1 && !strings.Contains(string(e.Request), "def apply_discount") {
			t.Errorf("the second request lacks the first command's output")
		}
	}
}

// TestMiniSWEPreset is TestAgents' session for mini-swe-agent under a
// name `go test -run MiniSWE` selects: it reads the region through its
// shell (the Counter-Edit lands and the message rides on that command's
// output, quoted as JSON) and runs the tests.
func TestMiniSWEPreset(t *testing.T) {
	testsupport.Slow(t)
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.Lookup("mini-swe-agent")
	if err != nil {
		t.Fatal(err)
	}
	agentSession(t, shimDir, a.Name, a.OfflineModel, a.NativeRead, true)
}

// TestMiniSWEStepLimit: `swetouch run --agent mini-swe-agent --step-limit
// 2` against a script that would go on: the third model call is refused,
// the agent is ended, and result.json says stopped: step_limit with three
// calls counted and a verdict (false), not null.
func TestMiniSWEStepLimit(t *testing.T) {
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := agents.Find("mini-swe-agent"); err != nil {
		t.Skipf("mini-swe-agent is not installed (scripts/install-agents.sh): %v", err)
	}
	var turns []string
	for i := 0; i < 6; i++ {
		turns = append(turns, `{"calls": [{"name": "@shell", "args": {"command": "ls"}}]}`)
	}
	script := filepath.Join(t.TempDir(), "loop.script.json")
	if err := os.WriteFile(script, []byte(`{"turns": [`+strings.Join(turns, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := modelserver.LoadScript(script)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(modelserver.NewServer(s, nil))
	defer ts.Close()
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(shimDir, "swetouch"), "run", "--verbose", "--task", filepath.Join(examplesDir, "tasks", "py-discount"),
		"--agent", "mini-swe-agent", "--model-url", ts.URL, "--step-limit", "2", "--out", out)
	got, _ := cmd.CombinedOutput()
	res, err := result.Read(filepath.Join(out, result.File))
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(string(got), 3000))
	}
	if res.Stopped != run.StoppedStepLimit || res.ModelCalls != 3 || res.Resolved == nil || *res.Resolved {
		t.Errorf("stopped %q after %d calls, resolved %v (%s)\n%s", res.Stopped, res.ModelCalls, res.Resolved, res.Reason, tail(string(got), 3000))
	}
}

// tail is the end of s, for a failure's message.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

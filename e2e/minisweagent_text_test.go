package e2e_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/trajectory"
)

// miniTextConfig is mini-swe-agent 2.2.4's text-based configuration, as
// --agent-arg flags: its shipped mini_textbased.yaml over mini.yaml (one
// fenced block per answer, no tools offered) and the model class that
// parses the block.
var miniTextConfig = []string{"-c", "mini_textbased.yaml", "--model-class", "litellm_textbased"}

// miniV1Config is v1's shape over it: the block labelled bash, as the
// corpus's mini-swe-agent 1.x runs answered, asked for by the system
// message and parsed by the model's action_regex.
const miniV1Config = `agent:
  system_template: |
    You are a helpful assistant that can interact with a computer shell.
    Answer with a THOUGHT, then exactly ONE command in ONE fenced block:

    THOUGHT: why

    ` + "```bash" + `
    your_command_here
    ` + "```" + `
model:
  action_regex: '` + "```bash\\s*\\n(.*?)\\n```" + `'
`

// TestMiniSWETextFormat: the real mini-swe-agent, sandboxed, in its
// text-based configuration (its requests offer no tools; the system
// message asks for one fenced block an answer), as shipped and with v1's
// bash label, plays py-discount's
// @shell script: the scripted server answers each request with the
// command in a block of the fence the system message names, mini runs
// each through /bin/sh, each is a step, the read-triggered Counter-Edit
// applies and its message is in the model's next request, and mini's own
// trajectory imports with the script's commands.
func TestMiniSWETextFormat(t *testing.T) {
	testsupport.Slow(t)
	v1 := filepath.Join(t.TempDir(), "v1.yaml")
	if err := os.WriteFile(v1, []byte(miniV1Config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fence string
		args  []string
	}{
		{"mswea_bash_command", miniTextConfig},
		{"bash", append([]string{"-c", "mini_textbased.yaml", "-c", v1}, miniTextConfig[2:]...)},
	} {
		t.Run(c.fence, func(t *testing.T) { miniTextSession(t, c.fence, c.args) })
	}
}

// miniTextSession plays py-discount with mini in a text configuration
// whose block is labelled fence.
func miniTextSession(t *testing.T, fence string, args []string) {
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	p, bin, err := agents.Find("mini-swe-agent")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "mini-swe-agent is not installed (scripts/install-agents.sh): %v", err)
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
	inv, err := p.Start(agents.Launch{Bin: bin, ModelURL: ts.URL, Swetouch: swetouch, Scratch: scratch, Task: tk.Name, Args: args})
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
	// every request was a text one, answered with a fenced block
	for _, e := range srv.Exchanges() {
		var req struct {
			Tools []any `json:"tools"`
		}
		json.Unmarshal(e.Request, &req)
		if len(req.Tools) > 0 || strings.Contains(e.Response, "tool_calls") {
			t.Fatalf("request %d offered tools or was answered with tool calls: the text configuration did not take", e.Seq)
		}
		if e.Turn >= 0 && !strings.Contains(e.Response, "```"+fence+`\n`) {
			t.Errorf("turn %d's answer holds no %s block: %s", e.Turn, fence, e.Response)
		}
	}
	want := scriptedCommands(s)
	tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, a := range replay.Actions(tr) {
		steps = append(steps, a.Command)
	}
	if strings.Join(steps, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("steps %q, scripted %q", steps, want)
	}
	// the Counter-Edit applied at the read, and its message reached the
	// model in the observation of that command
	msg := ""
	for _, ev := range tr.Events {
		if ev.Kind == event.Intervention && ev.Attempt != nil && ev.Attempt.Outcome == "applied" {
			msg = ev.Attempt.Message
		}
	}
	if res.Applied != 1 || msg == "" {
		t.Fatalf("%d Counter-Edits applied (message %q), want 1", res.Applied, msg)
	}
	words := strings.Fields(msg)
	fragment := strings.Join(words[:min(4, len(words))], " ")
	reached := false
	for _, e := range srv.Exchanges() {
		reached = reached || e.Turn == 1 && strings.Contains(string(e.Request), jsonEscaped(fragment))
	}
	if !reached {
		t.Errorf("the request after the read does not carry the message %q", msg)
	}
	data, err := os.ReadFile(filepath.Join(out, agents.MiniSWETrajectory))
	if err != nil {
		t.Fatalf("its trajectory was not kept: %v", err)
	}
	imported, err := replay.ImportMiniSWEAgent(data, agents.MiniSWETrajectory, replay.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, a := range replay.Actions(imported) {
		kept = append(kept, a.Command)
	}
	if strings.Join(kept, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("mini's trajectory imports %q, scripted %q", kept, want)
	}
}

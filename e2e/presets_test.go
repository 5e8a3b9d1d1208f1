package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/gocache/serve"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/shell"
	"github.com/swetouch/swetouch/task"
)

// TestAgents drives each real agent, unmodified, with the scripted model
// server: it reads the region through its shell (the Counter-Edit lands
// and the message rides on that command's output), reads and edits the
// file with its native tools, and runs the tests.
func TestAgents(t *testing.T) {
	testsupport.Slow(t)
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	// every registered agent with an install of its own: a new agent is
	// tested by being registered (Codex runs /bin/bash itself and has no
	// native read tool: its PostToolUse hook reports each call and
	// carries the message)
	for _, a := range realAgents(t) {
		if a.Name == "mini-swe-agent" {
			continue // TestMiniSWEPreset, which -run MiniSWE selects
		}
		t.Run(a.Name, func(t *testing.T) { agentSession(t, shimDir, a.Name, a.OfflineModel, a.NativeRead, true) })
	}
}

func agentSession(t *testing.T, shimDir, agent, modelName, readTool string, delivers bool) {
	p, bin, err := agents.Find(agent)
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "%s is not installed: %v", agent, err)
	}
	s, err := modelserver.LoadScript(filepath.Join(examplesDir, "agents", agent, "py-discount.script.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	// the session's model answers go to a cassette, for the replay below
	cassette := filepath.Join(t.TempDir(), "cassette.jsonl")
	cf, err := os.Create(cassette)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	upstream, _ := url.Parse(ts.URL)
	recorded := httptest.NewServer(modelserver.NewRecorder(upstream, cf))
	defer recorded.Close()
	tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
	recs, _ := task.LoadRecords(filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"))
	out, scratch := t.TempDir(), t.TempDir()
	// as swetouch run's scratch is, in a folder any uid may pass through
	// (the test's own temporary root is 0700): the trial's uid reaches it
	os.Chmod(filepath.Dir(scratch), 0o711)
	// sandboxed, as swetouch run runs it, where the sandbox can run
	sb := sandboxed(t, filepath.Join(shimDir, "swetouch"))
	// the agent as run and eval start it: its Start, its launch
	inv, err := p.Start(agents.Launch{Bin: bin, ModelURL: recorded.URL, Model: modelName, Swetouch: filepath.Join(shimDir, "swetouch"), Scratch: scratch, Task: tk.Name})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Trial(context.Background(), run.Config{
		Task: tk, Record: recs[0], Condition: policy.CounterEdit, Out: out, Shim: filepath.Join(shimDir, "swetouch-shim"),
		Agent: inv, Sandbox: sb, Scratch: []string{scratch}, ModelURL: recorded.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.AgentExit != 0 || srv.Turns() != len(s.Turns) {
		t.Fatalf("agent exit %d after %d scripted turns", res.AgentExit, srv.Turns())
	}
	// as root, the agent's install is where its trial's own uid reaches
	// it (agents.AgentsDir), so it is never why the trial shares
	// swetouch's uid (a tool under /root on PATH still may: bwrap, run as
	// that uid, resolves every bind by path)
	if sb.Runner != nil && os.Geteuid() == 0 && res.Limits != nil && strings.Contains(res.Limits.SharedUID, agents.AgentsDir()) {
		t.Errorf("the agent's install made its trial share swetouch's uid: %s", res.Limits.SharedUID)
	}
	tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var shellRead, nativeRead, nativeEdit, test, applied bool
	for _, ev := range tr.Events {
		switch {
		case ev.Kind == event.Read && ev.Actor == event.Agent && ev.Tool == "" && len(ev.Scopes) > 0 && ev.Scopes[0] == event.LineScope("pricing.py", 4, 6):
			shellRead = true
		case ev.Kind == event.Read && ev.Tool == readTool && len(ev.Scopes) > 0 && ev.Scopes[0] == event.LineScope("pricing.py", 1, 12):
			nativeRead = true
		case ev.Kind == event.Edit && ev.Source == "watch" && ev.Actor == event.Agent && len(ev.Scopes) > 0 && ev.Scopes[0].Path == "pricing.py" && !ev.Scopes[0].Whole():
			nativeEdit = true
		case ev.Kind == event.Test:
			test = true
		case ev.Kind == event.Intervention && ev.Attempt.Outcome == "applied":
			applied = true
		}
	}
	if readTool == "" {
		nativeRead = true // the agent has none
	}
	// the agent's actions are the script's calls, one step each, and
	// nothing of the agent's own (start-up commands, wrapper bookkeeping)
	calls := 0
	for _, turn := range s.Turns {
		calls += len(turn.Calls)
	}
	steps := map[int][]string{}
	for _, ev := range tr.Events {
		if ev.Actor != event.Agent || ev.Step == nil {
			continue
		}
		what := string(ev.Kind) + " " + ev.Source
		if ev.Command != "" {
			what += fmt.Sprintf(" %.100q", ev.Command)
		}
		for _, sc := range ev.Scopes {
			what += " " + sc.Path
			if strings.HasPrefix(sc.Path, "/") {
				t.Errorf("step %d: %s outside the workspace: %s", *ev.Step, ev.Kind, sc.Path)
			}
		}
		steps[*ev.Step] = append(steps[*ev.Step], what)
	}
	if len(steps) != calls {
		t.Errorf("%d agent steps for %d scripted calls: %v", len(steps), calls, steps)
	}
	// and in the script's order, each holding an event of its call's kind
	var want, got []string
	for _, turn := range s.Turns {
		for _, c := range turn.Calls {
			want = append(want, callKind(c))
		}
	}
	for i, k := range slices.Sorted(maps.Keys(steps)) {
		// the step holds an event of its call's kind (a shell command
		// that reads and writes a file is both, in the classifier's order)
		kind := strings.Fields(steps[k][0])[0]
		for _, what := range steps[k] {
			if i < len(want) && strings.HasPrefix(what, want[i]+" ") {
				kind = want[i]
			}
		}
		got = append(got, kind)
	}
	if !slices.Equal(got, want) {
		t.Errorf("recorded actions %v, script %v (steps %v)", got, want, steps)
	}
	if !shellRead || !nativeRead || !nativeEdit || !test || !applied {
		t.Errorf("trajectory: shell read 4-6 %v, native Read 1-12 %v, native edit with lines %v, test %v, Counter-Edit applied %v",
			shellRead, nativeRead, nativeEdit, test, applied)
	}
	// the message reached the model: the request after the read carries it
	ex := srv.Exchanges()
	var reached bool
	for _, e := range ex {
		// however the agent quotes its tool's output (mini-swe-agent's is
		// JSON again, its < escaped), the message's tag and words are there
		if e.Turn == 1 && strings.Contains(string(e.Request), "user-message") {
			reached = strings.Contains(string(e.Request), "clamped")
		}
	}
	if !reached && delivers {
		t.Errorf("the model's next request does not carry the user's message")
	}
	if sb.Runner != nil && res.Sandbox != sandbox.Bwrap {
		t.Errorf("result.json: sandbox %q, want bwrap", res.Sandbox)
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); err != nil || res.Resolved == nil {
		t.Errorf("result: %v resolved %v (%s)", err, res.Resolved, res.Reason)
	}
	// the same agent binary, replayed against the cassette under the same
	// condition, has the same session: same commands, outputs, decisions
	t.Run("replay", func(t *testing.T) {
		cmd := exec.Command(filepath.Join(shimDir, "swetouch"), "replay", filepath.Join(out, "trajectory.jsonl"),
			"--task", filepath.Join(examplesDir, "tasks", "py-discount"), "--records", filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"),
			"--cassette", cassette, "--agent", agent, "--model", modelName, "--check", "--out", t.TempDir())
		got, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(got), "identical to the recording") {
			t.Errorf("replay against the cassette: %v\n%s", err, got)
		}
	})
}

// TestClaudeNativeReadMessage: when Claude Code's own Read tool reaches
// the region, its PostToolUse hook reports the exact lines, the
// Counter-Edit lands, and the message is in the very next model request
// (no shell command needed to carry it).
func TestClaudeNativeReadMessage(t *testing.T) {
	p, bin, err := agents.Find("claude")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "claude is not installed: %v", err)
	}
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	s, err := modelserver.LoadScript(filepath.Join(examplesDir, "agents", "claude", "native-read.script.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
	recs, _ := task.LoadRecords(filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"))
	swetouch := filepath.Join(shimDir, "swetouch")
	res, err := run.Trial(context.Background(), run.Config{
		Task: tk, Record: recs[0], Condition: policy.CounterEdit, Out: t.TempDir(), Shim: swetouch,
		Agent: agents.Invocation{Argv: p.Command(agents.Launch{Bin: bin, Swetouch: swetouch}, "{instruction}", "claude-sonnet-4-5"), Env: p.Env(ts.URL, swetouch, t.TempDir()), Observe: p.Observe, Own: p.Own},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 1 || res.Interventions[0].Trigger != "read" {
		t.Fatalf("interventions %+v", res.Interventions)
	}
	var reached bool
	for _, e := range srv.Exchanges() {
		if e.Turn == 1 {
			reached = strings.Contains(string(e.Request), "clamped") && strings.Contains(string(e.Request), "user-message")
		}
	}
	if !reached {
		t.Errorf("the request after the native Read does not carry the user's message")
	}
}

// callKind is the kind of action a scripted call is: a shell command as
// the classifier reads it, a native tool by what it does.
func callKind(c modelserver.Call) string {
	switch c.Name {
	case "@shell":
		var a struct {
			Command string `json:"command"`
		}
		json.Unmarshal(c.Args, &a)
		if res := shell.Classify(a.Command); len(res.Findings) > 0 {
			return string(res.Findings[0].Kind)
		}
		return string(event.Run)
	case "Read", "read_file", "read":
		return string(event.Read)
	}
	return string(event.Edit) // Edit, Write, replace, write_file, edit, apply_patch
}

// sandboxed is the sandbox swetouch run gives an agent (with Go's build
// cache served on a socket), where bwrap can run here; else none,
// said in the log.
func sandboxed(t *testing.T, swetouch string) sandbox.Setup {
	r := &sandbox.Runner{}
	if err := r.Check(); err != nil {
		t.Logf("unsandboxed: %v", err)
		return sandbox.Setup{}
	}
	cache := t.TempDir()
	env, visible, err := serve.Host(cache, filepath.Join(filepath.Dir(swetouch), "swetouch-shim"))
	if err != nil {
		t.Fatal(err)
	}
	return sandbox.Setup{Runner: r, Env: env, Visible: append(visible, swetouch)}
}

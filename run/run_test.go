package run_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
)

// TestRunExample: a whole run (workspace, hub, shims, scripted agent,
// verifier) writes a readable trajectory and a result that matches what
// the agent did.
func TestRunExample(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := task.LoadRecords(filepath.Join(example, "records.jsonl"))
	plan, _ := filepath.Abs("../examples/agents/py-discount.json")
	for _, tt := range []struct {
		cond     policy.Condition
		agent    string
		resolved bool
		applied  int
	}{
		{policy.Vanilla, "naive", true, 0},
		{policy.CounterEdit, "naive", false, 1},
		{policy.CounterEdit, "careful", true, 1},
	} {
		t.Run(string(tt.cond)+"/"+tt.agent, func(t *testing.T) {
			out := t.TempDir()
			res, err := run.Trial(context.Background(), run.Config{
				Task: tk, Record: recs[0], Condition: tt.cond, Out: out, Shim: filepath.Join(binDir, "swetouch-shim"),
				Agent: agents.Command(filepath.Join(binDir, "swetouch"), "agent", "script", "--plan", plan, "--behaviour", tt.agent),
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Resolved == nil || *res.Resolved != tt.resolved || res.Applied != tt.applied || res.Delivered != tt.applied {
				t.Errorf("resolved %v (%s), applied %d, delivered %d; want %v, %d", res.Resolved, res.Reason, res.Applied, res.Delivered, tt.resolved, tt.applied)
			}
			if res.Delivery != string(policy.Always) {
				t.Errorf("delivery %q, want the paper's, always", res.Delivery)
			}
			tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			last := tr.Events[len(tr.Events)-1]
			if last.Kind != event.Session || last.Note != "done" {
				t.Errorf("last event %+v", last)
			}
			if _, err := os.Stat(filepath.Join(out, "result.json")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestKill9: killing `swetouch run` outright mid-session leaves a
// trajectory that reads, with everything recorded up to then.
func TestKill9(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	run := startRun(t, out, []string{"--records", filepath.Join(example, "records.jsonl")}, "bash -c 'nl -ba pricing.py | sed -n 1,8p'")
	run.Process.Kill()
	run.Wait()
	tf, err := os.Open(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	tr, err := trajectory.Read(tf, "trajectory.jsonl")
	if err != nil {
		t.Fatalf("trajectory after kill -9: %v", err)
	}
	var applied bool
	for _, ev := range tr.Events {
		applied = applied || ev.Kind == event.Intervention && ev.Attempt.Outcome == "applied"
	}
	if !applied {
		t.Errorf("the intervention before the kill is not in the trajectory: %+v", tr.Events)
	}
}

// TestCtrlC: an interrupt stops the agent, skips the verifier, and still
// writes a complete trajectory and result.json.
func TestCtrlC(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	run := startRun(t, out, nil, "bash -c 'cat pricing.py' >/dev/null")
	run.Process.Signal(os.Interrupt)
	run.Wait()
	if code := run.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil || !strings.Contains(string(b), `"reason": "interrupted"`) {
		t.Errorf("result.json: %v %s", err, b)
	}
	tf, _ := os.Open(filepath.Join(out, "trajectory.jsonl"))
	defer tf.Close()
	tr, err := trajectory.Read(tf, "trajectory.jsonl")
	if err != nil || tr.Truncated {
		t.Fatalf("trajectory: %v", err)
	}
	if last := tr.Events[len(tr.Events)-1]; last.Kind != event.Session || last.Note != "interrupted" {
		t.Errorf("last event %+v", last)
	}
}

// startRun starts `swetouch run` on the example with an agent that runs
// script through the shim, then signals readiness and waits; it returns
// once the agent is waiting.
func startRun(t *testing.T, out string, extra []string, script string) *exec.Cmd {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// the FIFO is shown to the sandboxed agent (--visible: only files
	// named on its command line are, by themselves)
	args := append([]string{"run", "--task", example, "--out", out, "--visible", fifo}, extra...)
	args = append(args, "--", "sh", "-c", script+`; echo > "$1"; exec sleep 30`, "sh", fifo)
	run := exec.Command(filepath.Join(binDir, "swetouch"), args...)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	testbin.AwaitReady(t, fifo, run.Process)
	return run
}

// TestIsolation (invariant 2): nothing in the agent's environment or
// workspace points at the evaluation data (records, hidden tests,
// solution).
func TestIsolation(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := task.LoadRecords(filepath.Join(example, "records.jsonl"))
	var seen strings.Builder
	_, err = run.Trial(context.Background(), run.Config{
		Task: tk, Record: recs[0], Condition: policy.CounterEdit, Out: t.TempDir(), Shim: filepath.Join(binDir, "swetouch-shim"),
		Agent:  agents.Command("sh", "-c", "env; find . -path ./.git -prune -o -type f -print"),
		Stdout: &seen,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := seen.String()
	if !strings.Contains(out, "pricing.py") || !strings.Contains(out, "SWETOUCH_SOCKET=") {
		t.Fatalf("the agent's view is not what the test expects:\n%s", out)
	}
	for _, leak := range []string{"records.jsonl", "test_hidden", "solve.sh", tk.Dir} {
		if strings.Contains(out, leak) {
			t.Errorf("the agent can see %q", leak)
		}
	}
}

// TestSandboxSetupFailure: a sandbox that bwrap could not make is an
// infrastructure error (resolved null, saying so), never the agent's
// failure: the agent never ran.
func TestSandboxSetupFailure(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	// a bwrap that passes the availability probe and fails every sandbox
	fake := filepath.Join(t.TempDir(), "bwrap")
	os.WriteFile(fake, []byte("#!/bin/sh\nfor a; do last=$a; done\n[ \"$last\" = true ] && exit 0\necho 'bwrap: cannot make the sandbox' >&2\nexit 1\n"), 0o755)
	res, err := run.Trial(context.Background(), run.Config{
		Task: tk, Out: t.TempDir(), Shim: filepath.Join(binDir, "swetouch-shim"),
		Agent: agents.Command("/bin/sh", "-c", "exit 0"), Sandbox: sandbox.Setup{Runner: &sandbox.Runner{Bwrap: fake}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved != nil || !strings.Contains(res.Reason, "sandbox") || res.AgentExit != -1 {
		t.Errorf("resolved %v, reason %q, agent exit %d: want null for the sandbox", res.Resolved, res.Reason, res.AgentExit)
	}
}

// TestFailuresHaveNames: what the agent printed is kept in agent.log; an
// agent that took no step and reported its model out of reach is an
// infrastructure error; one that acted first, then printed the same line
// (as a command of its own could, to hide a failure), is judged by the
// tests; an agent that cannot start gets a result.json too.
func TestFailuresHaveNames(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	unreached := func(line []byte) string {
		if s, ok := strings.CutPrefix(string(line), `{"model":"unreachable","why":"`); ok {
			return strings.TrimSuffix(s, `"}`)
		}
		return ""
	}
	const report = `echo '{"model":"unreachable","why":"not logged in"}'`
	for _, tt := range []struct {
		name, script string
		agent        []string
		null         bool
		reason       string
		startErr     bool
	}{
		{name: "no step, reported", script: report + "; echo to stderr >&2; exit 1", null: true, reason: "the agent never reached its model: not logged in"},
		{name: "acted, then reported", script: "bash -c 'cat pricing.py' >/dev/null; " + report, null: false},
		{name: "no step, silent", script: "exit 1", null: false},
		{name: "cannot start", agent: []string{"/no/such/agent"}, null: true, reason: "the agent could not start", startErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			agent := tt.agent
			if agent == nil {
				agent = []string{"/bin/sh", "-c", tt.script}
			}
			res, err := run.Trial(context.Background(), run.Config{
				Task: tk, Out: out, Shim: filepath.Join(binDir, "swetouch-shim"), Agent: agents.Invocation{Argv: agent, Unreached: unreached},
			})
			if tt.startErr != errors.Is(err, run.ErrAgentStart) || !tt.startErr && err != nil {
				t.Fatalf("err %v", err)
			}
			if (res.Resolved == nil) != tt.null || !strings.HasPrefix(res.Reason, tt.reason) {
				t.Errorf("resolved %v, reason %q; want null %v, reason %q", res.Resolved, res.Reason, tt.null, tt.reason)
			}
			b, err := os.ReadFile(filepath.Join(out, "result.json"))
			if err != nil || !strings.Contains(string(b), `"resolved": `) {
				t.Errorf("result.json: %v\n%s", err, b)
			}
			log, _ := os.ReadFile(filepath.Join(out, run.AgentLog))
			// both streams, each line whole (their order across the two
			// pipes is the kernel's)
			if tt.name == "no step, reported" && (len(log) != len("{\"model\":\"unreachable\",\"why\":\"not logged in\"}\nto stderr\n") ||
				!strings.Contains(string(log), "{\"model\":\"unreachable\",\"why\":\"not logged in\"}\n") || !strings.Contains(string(log), "to stderr\n")) {
				t.Errorf("agent.log: %q", log)
			}
			if tt.startErr && !strings.Contains(string(log), "/no/such/agent") {
				t.Errorf("agent.log does not say why: %q", log)
			}
		})
	}
}

// TestSetupFailure: a run whose workspace cannot be made still writes
// result.json, null with the reason, and says ErrSetup.
func TestSetupFailure(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	broken := *tk
	broken.Repo = filepath.Join(t.TempDir(), "no-such-repo")
	out := t.TempDir()
	res, err := run.Trial(context.Background(), run.Config{Task: &broken, Out: out, Shim: filepath.Join(binDir, "swetouch-shim"), Agent: agents.Command("/bin/true")})
	if !errors.Is(err, run.ErrSetup) || res == nil || res.Resolved != nil || !strings.Contains(res.Reason, "the workspace") {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if b, err := os.ReadFile(filepath.Join(out, "result.json")); err != nil || !strings.Contains(string(b), "could not be set up") {
		t.Errorf("result.json: %v %s", err, b)
	}
}

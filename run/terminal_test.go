package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// terminating ends the conversation at its first turn as UserSWE's
// terminal rule does: the agent used the evaluation's material.
type terminating struct{ chatty }

func (c *terminating) TurnEnd(user.History) *user.Act {
	c.turns = append(c.turns, result.Turn{Turn: 1, Verdict: "terminated", Terminal: []string{"test_hidden.py"}})
	return &user.Act{End: true}
}

// TestTerminatedNotResolved (U14): a conversation its user terminated
// for the use of the evaluation's material is not resolved, though the
// agent's code passes the final verifier.
func TestTerminatedNotResolved(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	solve, _ := filepath.Abs(filepath.Join(example, "solution", "solve.sh"))
	talk := &terminating{}
	out := t.TempDir()
	res, err := run.Trial(context.Background(), run.Config{
		Task: tk, Out: out, Shim: filepath.Join(binDir, "swetouch-shim"),
		Agent: agents.Invocation{Argv: []string{"/bin/bash", solve}, Turns: &agents.Turns{
			Session: func([]byte) string { return "s" },
			Reply:   func(sofar string, _ []byte) string { return sofar },
			Resume:  func(argv []string, _ string) []string { return argv }}},
		Conversation: &run.Conversation{Opening: "hi", User: func(*task.Task, string, string) run.Talker { return talk }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved == nil || *res.Resolved || !strings.Contains(res.Reason, "terminated") || !res.Conversation.Terminated() {
		log, _ := os.ReadFile(filepath.Join(out, run.AgentLog))
		t.Errorf("resolved %v (%s), conversation %+v\n%s", result.ShowResolved(res.Resolved), res.Reason, res.Conversation, log)
	}
}

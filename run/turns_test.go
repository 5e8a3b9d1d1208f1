package run_test

import (
	"context"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// chatty always has more to say: the conversation ends only when the run
// stops asking.
type chatty struct{ turns []result.Turn }

func (c *chatty) Act(user.History, []event.Event) *user.Act { return nil }
func (c *chatty) Outcome(*user.Act, string)                 {}
func (c *chatty) Armed() bool                               { return false }
func (c *chatty) TurnEnd(user.History) *user.Act {
	c.turns = append(c.turns, result.Turn{Turn: len(c.turns) + 1})
	return &user.Act{Message: "and now?"}
}
func (c *chatty) Result() *result.Conversation { return &result.Conversation{Turns: c.turns} }
func (c *chatty) Failed() error                { return nil }
func (c *chatty) Close() error                 { return nil }

// TestNoSessionToResume: an agent whose preset resumes by session id and
// that never reports one ends the conversation after its first turn, and
// its work is judged as it stands: a verdict (here a failure), never the
// "no verdict" an agent losing a task could hide behind.
func TestNoSessionToResume(t *testing.T) {
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	talk := &chatty{}
	res, err := run.Trial(context.Background(), run.Config{
		Task: tk, Out: t.TempDir(),
		Agent: agents.Invocation{Argv: []string{"/bin/true"}, Turns: &agents.Turns{
			Session: func([]byte) string { return "" },
			Reply:   func(sofar string, _ []byte) string { return sofar },
			Resume:  func(argv []string, _ string) []string { return argv }}},
		Conversation: &run.Conversation{Opening: "hi", User: func(*task.Task, string, string) run.Talker { return talk }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved == nil || *res.Resolved || len(res.Turns) != 1 || !strings.Contains(res.Ended, "no session to resume") {
		t.Errorf("resolved %v (%s), %d turns, ended %q", res.Resolved, res.Reason, len(res.Turns), res.Ended)
	}
}

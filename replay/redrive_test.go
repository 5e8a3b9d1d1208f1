package replay

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
)

func traj(evs ...event.Event) *trajectory.Trajectory { return &trajectory.Trajectory{Events: evs} }

func cmd(step, exit int, command, out string, scopes ...event.Scope) event.Event {
	return event.Event{Source: "shell", Actor: event.Agent, Kind: event.Read, Step: &step, Command: command, Exit: &exit, Output: trajectory.NewOutput(out), Scopes: scopes}
}

// TestCompare: a replay is the same session modulo the workspace path,
// temporary names, ports and times; anything else is reported at the
// first action where it differs, saying what differed.
func TestCompare(t *testing.T) {
	m := RootMap{Root: "/testbed", Workspace: "/tmp/swetouch-ws-9"}
	base := traj(cmd(0, 0, "ls /testbed", "a.py\n"), cmd(1, 1, "pytest", "1 failed in 0.12s\n"))
	applied := event.Event{Source: "harness", Actor: event.Harness, Kind: event.Intervention, Step: new(1), Attempt: &event.Attempt{Order: 1, Outcome: "applied"}}
	for _, tc := range []struct {
		name string
		got  *trajectory.Trajectory
		want string // "" for no divergence
	}{
		{"same, modulo times", traj(cmd(0, 0, "ls /tmp/swetouch-ws-9", "a.py\n"), cmd(1, 1, "pytest", "1 failed in 0.31s\n")), ""},
		{"exit status", traj(cmd(0, 0, "ls /tmp/swetouch-ws-9", "a.py\n"), cmd(1, 0, "pytest", "1 failed in 0.12s\n")), "action 2 (recorded step 1, pytest): exit status differs"},
		{"output line", traj(cmd(0, 0, "ls /tmp/swetouch-ws-9", "b.py\n"), cmd(1, 1, "pytest", "")), "action 1 (recorded step 0, ls /testbed): output line 1 differs: recorded \"a.py\", replayed \"b.py\""},
		{"a decision", traj(cmd(0, 0, "ls /tmp/swetouch-ws-9", "a.py\n"), cmd(1, 1, "pytest", "1 failed in 0.12s\n"), applied), "action 2 (recorded step 1, pytest): decisions differs"},
		{"fewer actions", traj(cmd(0, 0, "ls /tmp/swetouch-ws-9", "a.py\n")), "action 2 (recorded step 1, pytest): number of actions differs"},
		{"classification", traj(cmd(0, 0, "ls /tmp/swetouch-ws-9", "a.py\n", event.FileScope("a.py")), cmd(1, 1, "pytest", "1 failed in 0.12s\n")), "classification differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(base, tc.got, m)
			switch {
			case tc.want == "" && d != nil:
				t.Errorf("divergence %v, want none", d)
			case tc.want != "" && (d == nil || !strings.Contains(d.Error(), tc.want)):
				t.Errorf("divergence %v, want %q", d, tc.want)
			}
		})
	}
}

// TestActions: a command's own file changes belong to it; a step without
// a command is a native action whose diffs and observed reads are kept.
func TestActions(t *testing.T) {
	read := event.Event{Source: "agent", Actor: event.Agent, Kind: event.Read, Step: new(1), Tool: "Read", Scopes: []event.Scope{event.LineScope("a.py", 1, 5)}}
	tr := traj(
		event.Event{Source: "shell", Actor: event.Agent, Kind: event.Edit, Step: new(0), Command: "sed -i s/a/b/ a.py"},
		event.Event{Source: "watch", Actor: event.Agent, Kind: event.Edit, Step: new(0), Command: "sed -i s/a/b/ a.py", Diff: "--- a/a.py\n"},
		read,
		event.Event{Source: "watch", Actor: event.Agent, Kind: event.Edit, Step: new(2), Diff: "--- a/a.py\n+++ b/a.py\n"},
		event.Event{Source: "harness", Actor: event.User, Kind: event.Edit, Step: new(2), Diff: "--- x"},
	)
	as := Actions(tr)
	if len(as) != 3 || as[0].Native() || len(as[0].Diffs) != 0 || !as[1].Native() || len(as[1].Observed) != 1 || !as[2].Native() || len(as[2].Diffs) != 1 {
		t.Errorf("actions %+v", as)
	}
}

func TestRootMap(t *testing.T) {
	m := RootMap{Root: "/testbed", Workspace: "/w/x"}
	if got := m.Command("cd /testbed && cat /testbed/a /testbed2/b '/testbed'"); got != "cd /w/x && cat /w/x/a /testbed2/b '/w/x'" {
		t.Errorf("Command: %q", got)
	}
	if got := m.Output("/w/x/a.py:3: /w/xy"); got != "/testbed/a.py:3: /w/xy" {
		t.Errorf("Output: %q", got)
	}
}

// TestCompareTurns: a conversation whose turns held no action still
// replays as itself only when its user said the same, turn by turn; and
// Turns splits a recording at the user's turn messages, each turn with
// the reply that ended it.
func TestCompareTurns(t *testing.T) {
	said := func(text string) event.Event {
		return event.Event{Kind: event.Message, Actor: event.User, Note: "turn", Text: text}
	}
	reply := func(text string) event.Event { return event.Event{Kind: event.Message, Actor: event.Agent, Text: text} }
	rec := traj(reply("Which file?"), said("pricing.py."), reply("Done."))
	if d := Compare(rec, traj(reply("Which file?"), said("pricing.py."), reply("Done.")), RootMap{}); d != nil {
		t.Errorf("the same conversation: %v", d)
	}
	d := Compare(rec, traj(reply("Which file?"), said("cart.py."), reply("Done.")), RootMap{})
	if d == nil || !strings.Contains(d.Error(), "the user's message opening turn 2 differs") {
		t.Errorf("another user message: %v", d)
	}
	seq := func(n int64, ev event.Event) event.Event { ev.Seq = n; return ev }
	two := traj(seq(1, cmd(0, 0, "cat a.py", "x\n")), seq(2, reply("Which file?")), seq(3, said("a.py.")), seq(4, cmd(1, 0, "ed a.py", "")), seq(5, reply("Done.")))
	turns := Turns(two)
	if len(turns) != 2 || len(turns[0].Actions) != 1 || len(turns[1].Actions) != 1 || turns[0].Reply != "Which file?" || turns[1].Reply != "Done." {
		t.Errorf("turns %+v", turns)
	}
}

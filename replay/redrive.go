package replay

import (
	"regexp"
	"strings"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
)

// Action is one recorded agent action, as a replay re-drives it: a shell
// command to run again, or a native tool call whose reads are reported
// again and whose edits are re-applied from their recorded diffs.
type Action struct {
	Step    int
	Command string // "" for a native action
	// Diffs are the changes a native edit made, as the watcher recorded
	// them.
	Diffs []string
	// Observed are the native events (a Read's lines) to report again.
	Observed []event.Event
	// Recorded is everything recorded for the action, for comparison.
	Recorded []event.Event
}

// Native reports whether the action was a native tool call.
func (a Action) Native() bool { return a.Command == "" }

// Actions splits a trajectory's agent events into actions, in order. A
// step with a command (from the shell, a hook or an import) is that
// command; a step without one is a native tool call.
func Actions(tr *trajectory.Trajectory) []Action {
	var out []Action
	eachAction(tr, func(i int, e *event.Event) {
		ev := *e
		if i == len(out) {
			out = append(out, Action{Step: *ev.Step})
		}
		a := &out[i]
		a.Recorded = append(a.Recorded, ev)
		switch {
		case ev.Command != "" && ev.Source != "agent":
			a.Command = ev.Command
		case ev.Source == "watch" && ev.Kind == event.Edit && ev.Diff != "":
			a.Diffs = append(a.Diffs, ev.Diff)
		case ev.Source == "agent":
			a.Observed = append(a.Observed, ev)
		}
	})
	// a command's own file changes come back when it runs again
	for i := range out {
		if !out[i].Native() {
			out[i].Diffs, out[i].Observed = nil, nil
		}
	}
	return out
}

// eachAction hands f each agent event of an action, in order, with the
// index of its action: a run of events with the same step.
func eachAction(tr *trajectory.Trajectory, f func(action int, ev *event.Event)) {
	i, last := -1, 0
	for k := range tr.Events {
		ev := &tr.Events[k]
		if ev.Actor != event.Agent || ev.Step == nil {
			continue
		}
		if i < 0 || *ev.Step != last {
			i, last = i+1, *ev.Step
		}
		f(i, ev)
	}
}

// RootMap maps a container root the recording ran in (/testbed, /app) to
// the replay's workspace, in commands, and back, in what they print.
type RootMap struct {
	Root, Workspace string
}

func (m RootMap) pattern(s string) *regexp.Regexp {
	// the root as a whole path element: /testbed and /testbed/x, never
	// /testbed2
	return regexp.MustCompile(regexp.QuoteMeta(s) + `(/|$|[^A-Za-z0-9_.\-])`)
}

// Command rewrites the root in a recorded command to the workspace.
func (m RootMap) Command(cmd string) string {
	if m.Root == "" || m.Workspace == "" {
		return cmd
	}
	return m.pattern(m.Root).ReplaceAllString(cmd, strings.ReplaceAll(m.Workspace, "$", "$$")+"$1")
}

// Output rewrites the workspace in a replayed output back to the root.
func (m RootMap) Output(s string) string {
	if m.Root == "" || m.Workspace == "" {
		return s
	}
	return m.pattern(m.Workspace).ReplaceAllString(s, strings.ReplaceAll(m.Root, "$", "$$")+"$1")
}

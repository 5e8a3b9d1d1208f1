package replay

import (
	"fmt"
	"os"
	"regexp"
	"strings"

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
func Actions(tr *Trajectory) []Action {
	var out []Action
	for _, ev := range tr.Events {
		if ev.Actor != event.Agent || ev.Step == nil {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Step != *ev.Step {
			out = append(out, Action{Step: *ev.Step})
		}
		a := &out[len(out)-1]
		a.Recorded = append(a.Recorded, ev)
		switch {
		case ev.Command != "" && ev.Source != "agent":
			a.Command = ev.Command
		case ev.Source == "watch" && ev.Kind == event.Edit && ev.Diff != "":
			a.Diffs = append(a.Diffs, ev.Diff)
		case ev.Source == "agent":
			a.Observed = append(a.Observed, ev)
		}
	}
	// a command's own file changes come back when it runs again
	for i := range out {
		if !out[i].Native() {
			out[i].Diffs, out[i].Observed = nil, nil
		}
	}
	return out
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

// Divergence is where a replay first differs from its recording.
type Divergence struct {
	Action  int    // 1-based index of the agent action
	Step    int    // the recorded step
	Command string // the action's command, or the native tool
	What    string // what differed
	Want    string // recorded
	Got     string // replayed
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("action %d (recorded step %d, %s): %s differs: recorded %q, replayed %q",
		d.Action, d.Step, clip(d.Command, 80), d.What, clip(d.Want, 160), clip(d.Got, 160))
}

// Compare checks a replay against its recording, action by action: the
// command, its exit status and output (with the workspace mapped back to
// the recorded root), the kinds and scopes the classifier gave, and the
// decisions taken at it (intervention attempts and their outcomes, the
// messages delivered), and a conversation's user messages turn by turn.
// Times are not compared. It returns the first divergence, or nil.
func Compare(recorded, replayed *Trajectory, m RootMap) *Divergence {
	ra, pa := Actions(recorded), Actions(replayed)
	rd, pd := decisionsByStep(recorded), decisionsByStep(replayed)
	for i := 0; i < max(len(ra), len(pa)); i++ {
		if i >= len(ra) || i >= len(pa) {
			d := &Divergence{Action: i + 1, What: "number of actions", Want: fmt.Sprint(len(ra)), Got: fmt.Sprint(len(pa))}
			if i < len(ra) {
				d.Step, d.Command = ra[i].Step, label(ra[i])
			}
			return d
		}
		r, p := ra[i], pa[i]
		div := func(what, want, got string) *Divergence {
			return &Divergence{Action: i + 1, Step: r.Step, Command: label(r), What: what, Want: want, Got: got}
		}
		if want, got := maskVolatile(r.Command), maskVolatile(m.Output(p.Command)); want != got {
			return div("command", want, got)
		}
		if want, got := exitOf(r), exitOf(p); want != got {
			return div("exit status", want, got)
		}
		if want, got := maskVolatile(outputOf(r)), maskVolatile(m.Output(outputOf(p))); want != got && !elided(r) {
			n, w, g := firstDifference(want, got)
			return div(fmt.Sprintf("output line %d", n), w, g)
		}
		if want, got := maskVolatile(scopesOf(r)), maskVolatile(scopesOf(p)); want != got {
			return div("classification", want, got)
		}
		if want, got := strings.Join(rd[r.Step], "; "), strings.Join(pd[p.Step], "; "); want != got {
			return div("decisions", want, got)
		}
	}
	// a conversation's user said the same, turn by turn
	rt, pt := turnMessages(recorded), turnMessages(replayed)
	for i := 0; i < max(len(rt), len(pt)); i++ {
		want, got := "", ""
		if i < len(rt) {
			want = rt[i]
		}
		if i < len(pt) {
			got = pt[i]
		}
		if want != got {
			return &Divergence{Action: len(ra), What: fmt.Sprintf("the user's message opening turn %d", i+2), Want: want, Got: got}
		}
	}
	return nil
}

// turnMessages are the user's messages that opened a conversation's
// later turns, in order.
func turnMessages(tr *Trajectory) []string {
	var out []string
	for _, ev := range tr.Events {
		if ev.Kind == event.Message && ev.Actor == event.User && ev.Note == "turn" {
			out = append(out, ev.Text)
		}
	}
	return out
}

func label(a Action) string {
	if a.Command != "" {
		return a.Command
	}
	for _, ev := range a.Recorded {
		if ev.Tool != "" {
			return "native " + ev.Tool
		}
	}
	return "native edit"
}

func exitOf(a Action) string {
	for _, ev := range a.Recorded {
		if ev.Exit != nil {
			return fmt.Sprint(*ev.Exit)
		}
	}
	return "-"
}

func outputOf(a Action) string {
	for _, ev := range a.Recorded {
		if ev.Output != nil {
			if ev.Output.Elided {
				return ev.Output.SHA256
			}
			return ev.Output.Text
		}
	}
	return ""
}

// elided reports whether the recording kept only part of the output, as
// imported runs do; such outputs cannot be compared.
func elided(a Action) bool {
	for _, ev := range a.Recorded {
		if ev.Output != nil && ev.Output.Elided && ev.Output.SHA256 == "" {
			return true
		}
	}
	return false
}

// scopesOf is what the classifier said of an action: kinds and scopes,
// from the command's own events (the watcher's are the edit's result).
func scopesOf(a Action) string {
	var parts []string
	for _, ev := range a.Recorded {
		if ev.Source == "watch" {
			continue
		}
		s := string(ev.Kind)
		for _, sc := range ev.Scopes {
			s += " " + sc.String()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// decisionsByStep lists, per step, the intervention outcomes and the
// messages delivered at it.
func decisionsByStep(tr *Trajectory) map[int][]string {
	out := map[int][]string{}
	step := -1
	for _, ev := range tr.Events {
		if ev.Step != nil {
			step = *ev.Step
		}
		switch {
		case ev.Kind == event.Intervention && ev.Attempt != nil:
			out[step] = append(out[step], fmt.Sprintf("attempt %d %s", ev.Attempt.Order, ev.Attempt.Outcome))
		case ev.Kind == event.Message:
			out[step] = append(out[step], "message "+ev.Text)
		}
	}
	return out
}

// Each session gets fresh paths in the temporary folder (a run's private
// folder, an agent's scratch, a shell wrapper's file) and fresh loopback
// ports (the model server, the hub): they are masked before commands and
// outputs are compared.
var (
	tempPath     = regexp.MustCompile(regexp.QuoteMeta(strings.TrimRight(os.TempDir(), "/")) + `/[^\s'"]+`)
	loopbackPort = regexp.MustCompile(`\b(127\.0\.0\.1|localhost|\[::1\]):[0-9]+`)
	// an environment dump's per-process secrets (an agent's own token)
	secretVar = regexp.MustCompile(`(?m)^([A-Z0-9_]*(TOKEN|SECRET|KEY)[A-Z0-9_]*=).*$`)
	// durations and clock times a command prints (test runners' timings):
	// a replay is the same session modulo time
	duration  = regexp.MustCompile(`\b[0-9]+\.[0-9]+ ?(ns|µs|us|ms|s|sec|seconds)\b|\b[0-9]+ ?(ns|µs|us|ms)\b`)
	clockTime = regexp.MustCompile(`\b[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?`)
	// Claude Code sources a shell snapshot named by time and a random tag
	claudeSnapshot = regexp.MustCompile(`(shell-snapshots/snapshot-[a-z]+)-[0-9]+-[a-z0-9]+`)
)

// maskVolatile masks what differs between two runs of the same session:
// fresh temporary paths and ports, per-process secrets, times.
func maskVolatile(s string) string {
	s = tempPath.ReplaceAllString(s, os.TempDir()+"/…")
	s = secretVar.ReplaceAllString(s, "$1…")
	s = claudeSnapshot.ReplaceAllString(s, "$1-…")
	s = clockTime.ReplaceAllString(s, "<time>")
	s = duration.ReplaceAllString(s, "<duration>")
	return loopbackPort.ReplaceAllString(s, "$1:…")
}

// firstDifference is the 1-based number of the first line where a and b
// differ, and those lines.
func firstDifference(a, b string) (int, string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y
		}
	}
	return 0, a, b
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

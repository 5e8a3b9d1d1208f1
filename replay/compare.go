package replay

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
)

// Divergence is where a replay differs from its recording at one action.
type Divergence struct {
	Action  int    // 1-based index of the agent action
	Step    int    // the recorded step
	Command string // the action's command, or the native tool
	What    string // what differed
	Want    string // recorded
	Got     string // replayed
	// Course says the difference changes the workspace's course: the
	// action changed files (in the recording or the replay) and behaved
	// differently, or read files that already differ, or a decision, a
	// user message or the final diff differs. Otherwise it is the
	// environment's (a listing of the container's egg-info, a tool not
	// installed here) and the session goes on as recorded.
	Course bool
	Why    string // why it is classified so
}

func (d *Divergence) Error() string {
	if d.Command == "" {
		// not an action's: the user's messages, the final diff
		return fmt.Sprintf("%s differs: recorded %q, replayed %q", d.What, clip(d.Want, 160), clip(d.Got, 160))
	}
	return fmt.Sprintf("action %d (recorded step %d, %s): %s differs: recorded %q, replayed %q",
		d.Action, d.Step, clip(d.Command, 80), d.What, clip(d.Want, 160), clip(d.Got, 160))
}

// Compare checks a replay against its recording, action by action: the
// command, its exit status and output (with the workspace mapped back to
// the recorded root), the kinds and scopes the classifier gave, and the
// decisions taken at it (intervention attempts and their outcomes, the
// messages delivered), and a conversation's user messages turn by turn.
// Times are not compared. It returns the first divergence, or nil.
func Compare(recorded, replayed *trajectory.Trajectory, m RootMap) *Divergence {
	if ds := CompareAll(recorded, replayed, m, nil); len(ds) > 0 {
		return &ds[0]
	}
	return nil
}

// CompareAll is Compare reporting every divergence, at most one per action
// (its first difference), each classified by whether it changes the
// workspace's course. final, when given, is the replay's final diff,
// checked against the diff the recording submitted (if it has one).
//
// What an action changed is the watcher's record on both sides for our
// own recordings; an imported one has only the classifier's edits, so a
// program whose writes the classifier cannot see (a script it has not
// got) is classed by what follows: a read that prints other content, and
// the final diff.
func CompareAll(recorded, replayed *trajectory.Trajectory, m RootMap, final *string) []Divergence {
	ra, pa := Actions(recorded), Actions(replayed)
	rd, pd := decisionsByStep(recorded), decisionsByStep(replayed)
	watched := slices.ContainsFunc(recorded.Events, isChange)
	c := &course{watched: watched, differ: map[string]bool{}, changed: map[string]bool{}}
	var out []Divergence
	for i := 0; i < max(len(ra), len(pa)); i++ {
		if i >= len(ra) || i >= len(pa) {
			d := Divergence{Action: i + 1, What: "number of actions", Want: fmt.Sprint(len(ra)), Got: fmt.Sprint(len(pa)),
				Course: true, Why: "the replay took other actions"}
			if i < len(ra) {
				d.Step, d.Command = ra[i].Step, label(ra[i])
			}
			return append(out, d)
		}
		r, p := ra[i], pa[i]
		what, want, got := firstDiffering(r, p, m, rd[r.Step], pd[p.Step])
		changedR, changedP := c.changes(r, p)
		if what != "" {
			d := Divergence{Action: i + 1, Step: r.Step, Command: label(r), What: what, Want: want, Got: got}
			d.Course, d.Why = c.classify(what, r, p, m, changedR, changedP)
			out = append(out, d)
		} else if watched {
			c.track(changedR, changedP)
		}
		c.saw(changedR, changedP)
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
			out = append(out, Divergence{Action: len(ra), What: fmt.Sprintf("the user's message opening turn %d", i+2), Want: want, Got: got,
				Course: true, Why: "the user said something else"})
		}
	}
	if want, ok := submitted(recorded); ok && final != nil && !SameDiff(want, *final) {
		d := Divergence{Action: len(ra), What: "final diff", Want: clip(want, 400), Got: clip(*final, 400),
			Course: true, Why: "the replay ends with other changes than the recording submitted"}
		files := DiffFiles(want, *final)
		if !slices.ContainsFunc(files, func(f string) bool { return c.changed[f] }) {
			d.Course, d.Why = false, "the diffs differ only in files the agent did not change ("+strings.Join(files, ", ")+"): the container's"
		}
		out = append(out, d)
	}
	return out
}

// AlignSteps marks each event of the replay's agent actions with the step
// of the recorded action it re-drives (the replay runs the recorded
// actions in order, one for one), so the two files align by step. It
// returns how many actions it aligned.
func AlignSteps(recorded, replayed *trajectory.Trajectory) int {
	ra := Actions(recorded)
	n := 0
	eachAction(replayed, func(i int, ev *event.Event) {
		if i < len(ra) {
			ev.RecordedStep = new(ra[i].Step)
			n = i + 1
		}
	})
	return n
}

// firstDiffering is the first field in which a replayed action differs
// from its recording ("" when none).
func firstDiffering(r, p Action, m RootMap, rdec, pdec []string) (what, want, got string) {
	if want, got := maskVolatile(r.Command), maskVolatile(m.Output(p.Command)); want != got {
		return "command", want, got
	}
	// an imported submission kept no exit status, output or reads: what
	// it printed is the diff, compared at the end
	if !isSubmission(r) {
		if want, got := exitOf(r), exitOf(p); want != got {
			return "exit status", want, got
		}
		if want, got := maskVolatile(outputOf(r)), maskVolatile(m.Output(outputOf(p))); want != got && !elided(r) {
			n, w, g := firstDifference(want, got)
			return fmt.Sprintf("output line %d", n), w, g
		}
		if want, got := maskVolatile(scopesOf(r)), maskVolatile(scopesOf(p)); want != got {
			return "classification", want, got
		}
	}
	if want, got := strings.Join(rdec, "; "), strings.Join(pdec, "; "); want != got {
		return "decisions", want, got
	}
	return "", "", ""
}

func isSubmission(a Action) bool {
	return slices.ContainsFunc(a.Recorded, func(ev event.Event) bool { return ev.Kind == event.Session && ev.Note == "submitted" })
}

// submitted is the diff an imported recording submitted.
func submitted(tr *trajectory.Trajectory) (string, bool) {
	for _, ev := range slices.Backward(tr.Events) {
		if ev.Kind == event.Session && ev.Note == "submitted" {
			return ev.Diff, true
		}
	}
	return "", false
}

var indexLine = regexp.MustCompile(`(?m)^index [0-9a-f]+\.\.[0-9a-f]+`)

// SameDiff compares diffs but for the abbreviation of index lines (each
// git picks its own length).
func SameDiff(a, b string) bool {
	return indexLine.ReplaceAllString(a, "index") == indexLine.ReplaceAllString(b, "index")
}

// DiffFiles names the files whose sections differ between two diffs (but
// for the abbreviation of index lines), sorted.
func DiffFiles(a, b string) []string {
	sa, sb := diffSections(a), diffSections(b)
	var out []string
	for n, sec := range sa {
		if !SameDiff(sb[n], sec) {
			out = append(out, n)
		}
	}
	for n := range sb {
		if _, ok := sa[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// diffSections splits a diff (or output holding one) by file: the new
// path of each "diff --git" header, and its text.
func diffSections(d string) map[string]string {
	m := map[string]string{}
	for _, sec := range strings.Split("\n"+d, "\ndiff --git ")[1:] {
		head, _, _ := strings.Cut(sec, "\n")
		if _, name, ok := strings.Cut(head, " b/"); ok {
			m[name] = strings.TrimRight(sec, "\n")
		}
	}
	return m
}

// turnMessages are the user's messages that opened a conversation's
// later turns, in order.
func turnMessages(tr *trajectory.Trajectory) []string {
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
func decisionsByStep(tr *trajectory.Trajectory) map[int][]string {
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
	// git abbreviates object names to a length of its own choosing
	gitIndex = regexp.MustCompile(`(?m)^index [0-9a-f]{7,40}\.\.[0-9a-f]{7,40}`)
)

// maskVolatile masks what differs between two runs of the same session:
// fresh temporary paths and ports, per-process secrets, times.
func maskVolatile(s string) string {
	s = tempPath.ReplaceAllString(s, os.TempDir()+"/…")
	s = secretVar.ReplaceAllString(s, "$1…")
	s = claudeSnapshot.ReplaceAllString(s, "$1-…")
	s = gitIndex.ReplaceAllString(s, "index …")
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

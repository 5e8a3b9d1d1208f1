package analyze

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/trajectory"
)

// Response modes of a window of the agent's actions after the user's
// edit, from most to least engaged with it: it edited a file the user
// edited (revise), read one (inspect), ran tests (verify), or worked
// elsewhere.
const (
	Revise    = "revise"
	Inspect   = "inspect"
	Verify    = "verify"
	Elsewhere = "elsewhere"
	// UserEdit is where every run's transitions start: the edit itself.
	UserEdit = "user_edit"
)

// Modes are the four window modes, in order.
var Modes = []string{Revise, Inspect, Verify, Elsewhere}

// Trial is one analysed run: a run under a condition in which a
// Counter-Edit landed.
type Trial struct {
	Dir       string        `json:"dir"`
	Agent     string        `json:"agent"`
	Condition string        `json:"condition"`
	Task      string        `json:"task"`
	Resolved  *bool         `json:"resolved"`
	Fate      string        `json:"user_edit_fate"`
	After     *score.Counts `json:"after_last_user_edit,omitempty"`
	// Windows are the response modes of each window of the agent's
	// actions after the first user edit.
	Windows []string `json:"windows"`
	// Verdict is the failure label of a run the paper labels: failed
	// under the condition on a task the agent's vanilla runs mostly
	// solved; nil otherwise.
	Verdict *Verdict `json:"verdict,omitempty"`
}

// Options of an analysis.
type Options struct {
	// Window is how many agent actions make a window (default 5).
	Window int
	// Panel labels the failures; its zero value labels none.
	Panel Panel
}

// Analysis is what analyze writes: per trial, and the tables.
type Analysis struct {
	Window       int                 `json:"window"`
	Trials       []Trial             `json:"trials"`
	Labels       []LabelRow          `json:"labels"`
	Modes        []ModeRow           `json:"modes"`
	PostEdit     []PostEditRow       `json:"post_edit"`
	Paper        []score.PaperRow    `json:"paper"`
	Correlations []score.Correlation `json:"revision_correlations"`
}

// Run analyses trials: every run under a condition with a landed
// Counter-Edit, its failures labelled (one at a time, in folder order,
// so a recording of the panel's calls replays in order).
func Run(ctx context.Context, trials []score.Trial, o Options) (*Analysis, error) {
	if o.Window <= 0 {
		o.Window = 5
	}
	solved := vanillaSolves(trials)
	sorted := slices.Clone(trials)
	slices.SortFunc(sorted, func(a, b score.Trial) int { return strings.Compare(a.Dir, b.Dir) })
	a := &Analysis{Window: o.Window, Trials: []Trial{}}
	for _, t := range sorted {
		r := t.Result
		if r.Condition == "vanilla" || r.Conversation != nil || t.Fate == "" {
			continue
		}
		tr, err := trajectory.ReadFile(filepath.Join(t.Dir, "trajectory.jsonl"))
		if err != nil {
			return nil, err
		}
		at := Trial{Dir: t.Dir, Agent: r.AgentName, Condition: r.Condition, Task: r.Task, Resolved: r.Resolved, Fate: t.Fate, After: t.After,
			Windows: windows(tr.Events, o.Window)}
		if r.Resolved != nil && !*r.Resolved && solved[[2]string{r.AgentName, r.Task}] {
			final, _ := os.ReadFile(filepath.Join(t.Dir, "final.diff"))
			v := o.Panel.Label(ctx, runText(t, tr.Events, string(final)))
			at.Verdict = &v
		}
		a.Trials = append(a.Trials, at)
	}
	a.Labels, a.Modes, a.PostEdit = labelRows(a.Trials), modeRows(a.Trials), postEditRows(a.Trials)
	a.Paper = score.PaperRows(trials)
	a.Correlations = score.RevisionCorrelations(score.Summarize(trials), a.Paper)
	return a, nil
}

// vanillaSolves are the (agent, task) pairs whose vanilla runs solved
// the task in most of their scored runs: the runs whose failure under a
// condition the paper attributes to the user's edit.
func vanillaSolves(trials []score.Trial) map[[2]string]bool {
	n := map[[2]string][2]int{}
	for _, t := range trials {
		r := t.Result
		if r.Condition != "vanilla" || r.Resolved == nil {
			continue
		}
		k := [2]string{r.AgentName, r.Task}
		c := n[k]
		if *r.Resolved {
			c[0]++
		}
		c[1]++
		n[k] = c
	}
	out := map[[2]string]bool{}
	for k, c := range n {
		out[k] = 2*c[0] > c[1]
	}
	return out
}

// windows splits the agent's actions after the first user edit into
// windows of n and gives each its mode. The shell and the watcher may
// both report one action: it counts once.
func windows(events []event.Event, n int) []string {
	userFiles := map[string]bool{}
	var modes []string
	var cur []event.Event
	started := false
	seen := map[[2]any]bool{}
	flush := func() {
		if len(cur) > 0 {
			modes = append(modes, modeOf(cur, userFiles))
			cur = nil
		}
	}
	for _, ev := range events {
		if ev.Kind == event.Edit && ev.Actor == event.User {
			started = true
			for _, s := range ev.Scopes {
				userFiles[s.Path] = true
			}
			continue
		}
		if !started || ev.Actor != event.Agent || ev.Step == nil {
			continue
		}
		switch ev.Kind {
		case event.Read, event.Edit, event.Test, event.Run:
		default:
			continue
		}
		k := [2]any{ev.Kind, *ev.Step}
		if seen[k] {
			continue
		}
		seen[k] = true
		cur = append(cur, ev)
		if len(cur) == n {
			flush()
		}
	}
	flush()
	return modes
}

// modeOf is a window's mode: the most engaged with the user's files.
func modeOf(win []event.Event, userFiles map[string]bool) string {
	touches := func(ev event.Event) bool {
		for _, s := range ev.Scopes {
			if userFiles[s.Path] {
				return true
			}
		}
		return false
	}
	mode := Elsewhere
	for _, ev := range win {
		switch {
		case ev.Kind == event.Edit && touches(ev):
			return Revise
		case ev.Kind == event.Read && touches(ev):
			mode = Inspect
		case ev.Kind == event.Test && mode == Elsewhere:
			mode = Verify
		}
	}
	return mode
}

// runText is what the labellers read of a run: the task and verdict,
// the user's edits and messages, the agent's actions after the first
// edit, and the final diff (clipped).
func runText(t score.Trial, events []event.Event, final string) string {
	var b strings.Builder
	r := t.Result
	fmt.Fprintf(&b, "Task: %s\nCondition: %s\nVerdict: the task's tests fail at the end of the run.\nThe user's edit at the end (lines it added still in the final diff): %s\n", r.Task, r.Condition, t.Fate)
	started, actions := false, 0
	for _, ev := range events {
		switch {
		case ev.Actor == event.User && ev.Kind == event.Edit:
			started = true
			fmt.Fprintf(&b, "\n## The user's edit\n%s\n", clip(ev.Diff, 3000))
		case ev.Actor == event.User && ev.Kind == event.Message:
			fmt.Fprintf(&b, "\n## The user's message\n%s\n", clip(ev.Text, 1000))
		case started && ev.Actor == event.Agent && ev.Step != nil && actions < 80:
			what := ev.Command
			if what == "" {
				what = ev.Tool
			}
			if what == "" {
				continue
			}
			actions++
			fmt.Fprintf(&b, "- step %d %s: %s\n", *ev.Step, ev.Kind, clip(strings.ReplaceAll(what, "\n", " "), 300))
		}
	}
	fmt.Fprintf(&b, "\n## The final diff\n%s\n", clip(final, 6000))
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

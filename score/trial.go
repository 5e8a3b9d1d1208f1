package score

import (
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
)

// Fates of the user's edit at the end of a trial.
const (
	Retained = "retained" // every line the Counter-Edit added is still there
	Removed  = "removed"  // none is
	Replaced = "replaced" // some are
)

// Trial is one run's result as found on disk.
type Trial struct {
	Dir    string
	Result result.Run
	// Fate of the user's edit (Retained, Removed, Replaced); "" when no
	// Counter-Edit landed.
	Fate string
	// After counts the agent's reads, edits and tests after the last user
	// edit; nil when the user never edited.
	After *Counts
	// Marks is the trajectory reduced to what a timeline shows.
	Marks []Mark
}

// Counts of the agent's actions.
type Counts struct {
	Reads int `json:"reads"`
	Edits int `json:"edits"`
	Tests int `json:"tests"`
}

// Mark is one event on a trial's timeline.
type Mark struct {
	Seq   int64      `json:"seq"`
	Kind  event.Kind `json:"kind"`
	Actor string     `json:"actor,omitempty"`
	// Label is what the event was: the command, the tool and its scopes,
	// the message text or the intervention's outcome.
	Label string `json:"label"`
	// Outcome of an intervention attempt (applied, noop, failed, skipped).
	Outcome string `json:"outcome,omitempty"`
}

// inspect reads the trial's trajectory once: the timeline (with
// timelines), what the agent did after the last user edit, and that
// edit's fate against final.diff. A trial without a readable trajectory
// keeps only its result; without timelines, so does one that holds no
// user's event.
func (t *Trial) inspect(f *files, timelines bool) {
	if !timelines && !t.userMayHaveActed() {
		return
	}
	data, err := f.read(filepath.Join(t.Dir, trajectoryFile))
	if err != nil || !timelines && !mayHoldUserEvent(data) {
		return
	}
	events, err := readMarks(data, timelines)
	if err != nil {
		return
	}
	var added []string
	// The shell and the watcher may both report one action; it is one
	// mark and counts once, with the watcher's line scopes if it has them.
	type action struct {
		kind event.Kind
		step int
	}
	seen := map[action]int{}
	for _, ev := range events {
		m, ok := markOf(ev)
		if !ok {
			continue
		}
		agentAction := ev.Actor == event.Agent && ev.Step != nil
		if agentAction {
			k := action{ev.Kind, *ev.Step}
			if i, dup := seen[k]; dup {
				if ev.Source == "watch" {
					t.Marks[i].Label = m.Label
				}
				continue
			}
			seen[k] = len(t.Marks)
		}
		t.Marks = append(t.Marks, m)
		if ev.Kind == event.Edit && ev.Actor == event.User {
			t.After = &Counts{}
			added = append(added, plusLines(ev.Diff)...)
			continue
		}
		if t.After == nil || ev.Actor != event.Agent {
			continue
		}
		switch ev.Kind {
		case event.Read:
			t.After.Reads++
		case event.Edit:
			t.After.Edits++
		case event.Test:
			t.After.Tests++
		}
	}
	if !timelines {
		t.Marks = nil
	}
	if len(added) > 0 {
		final, _ := f.read(filepath.Join(t.Dir, finalDiffFile))
		t.Fate = fateOf(added, plusLines(string(final)))
	}
}

// userMayHaveActed says whether the result leaves room for a user's
// edit in the trajectory: an intervention was applied or attempted, or a
// conversation's turn says the user edited files (its Counter-Edits).
// Otherwise (a vanilla trial, a conversation of messages alone) the
// trajectory need not be read for the figures.
func (t *Trial) userMayHaveActed() bool {
	r := t.Result
	if r.Applied > 0 || len(r.Interventions) > 0 {
		return true
	}
	if r.Conversation != nil {
		for _, turn := range r.Conversation.Turns {
			if len(turn.UserEdits) > 0 {
				return true
			}
		}
	}
	return false
}

// fateOf compares the lines the Counter-Edits added with the lines the
// run's final diff adds.
func fateOf(added, final []string) string {
	kept := map[string]bool{}
	for _, l := range final {
		kept[l] = true
	}
	n := 0
	for _, l := range added {
		if kept[l] {
			n++
		}
	}
	switch n {
	case len(added):
		return Retained
	case 0:
		return Removed
	}
	return Replaced
}

// markOf keeps the events a reader of a timeline cares about: the agent's
// actions, the user's edits and messages, and intervention attempts.
func markOf(ev event.Event) (Mark, bool) {
	m := Mark{Seq: ev.Seq, Kind: ev.Kind, Actor: string(ev.Actor)}
	switch ev.Kind {
	case event.Read, event.Edit, event.Test, event.Run:
		m.Label = ev.Command
		if m.Label == "" {
			m.Label = ev.Tool
		}
		if len(ev.Scopes) > 0 {
			var s []string
			for _, sc := range ev.Scopes {
				s = append(s, sc.String())
			}
			m.Label = strings.TrimSpace(m.Label + " [" + strings.Join(s, ", ") + "]")
		}
	case event.Message:
		m.Label = ev.Text
	case event.Intervention:
		if ev.Attempt == nil || ev.Attempt.Outcome == "attempt" {
			return m, false // the diff of an attempt, or its start: the outcome follows
		}
		m.Outcome = ev.Attempt.Outcome
		m.Label = strings.TrimSpace(ev.Attempt.Scenario + " " + ev.Attempt.Outcome + ": " + ev.Attempt.Why)
	default:
		return m, false
	}
	m.Label = clip(m.Label, 300)
	return m, true
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func plusLines(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") && strings.TrimSpace(l[1:]) != "" {
			out = append(out, l[1:])
		}
	}
	return out
}

package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/swetouch/swetouch/event"
)

// progress prints what a run's agent did, one line an action, as eval
// prints one line a trial: the agent's own output (an agent's JSON event
// stream, 10 KB for a short opencode run) goes to agent.log instead.
// An action's events (the shell's read and edit of one command, the
// watcher's edit of it) come one after another and make one line, held
// until the next event shows the action is over.
type progress struct {
	w       io.Writer
	mu      sync.Mutex
	pending *action
}

// action is one step of the agent's: what its command did to which files.
type action struct {
	step    int
	command string
	kinds   []string
	paths   []string
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

// event takes each event the hub records (run.Config.OnEvent).
func (p *progress) event(ev event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Actor == event.Agent && ev.Step != nil {
		switch ev.Kind {
		case event.Read, event.Edit, event.Test, event.Run:
			if a := p.pending; a != nil && a.step == *ev.Step && a.command == ev.Command {
				a.add(ev)
				return
			}
			p.flush()
			p.pending = &action{step: *ev.Step, command: ev.Command}
			p.pending.add(ev)
			return
		}
	}
	if line := otherLine(ev); line != "" {
		p.flush()
		fmt.Fprintln(p.w, line)
	}
}

// done prints the action still held.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
}

func (p *progress) flush() {
	if a := p.pending; a != nil {
		fmt.Fprintln(p.w, a.line())
		p.pending = nil
	}
}

func (a *action) add(ev event.Event) {
	if k := string(ev.Kind); !contains(a.kinds, k) {
		a.kinds = append(a.kinds, k)
	}
	for _, s := range ev.Scopes {
		if p := visible(s.Path); p != "" && !contains(a.paths, p) {
			a.paths = append(a.paths, p)
		}
	}
}

func (a *action) line() string {
	files := strings.Join(a.paths, " ")
	if len(a.paths) > 3 {
		files = fmt.Sprintf("%s and %d more", strings.Join(a.paths[:3], " "), len(a.paths)-3)
	}
	return fmt.Sprintf("  step %-3d %-10s %-24s %s", a.step, strings.Join(a.kinds, ","), files, clip(a.command, 72))
}

// otherLine is the line of an event that is not one of the agent's
// actions: the user's edit, message and turn, an intervention's outcome,
// the verdict ("" for the rest: the session's start and end, traffic,
// the harness's own commands, an attempt not yet decided).
func otherLine(ev event.Event) string {
	switch {
	case ev.Kind == event.Edit && ev.Actor == event.User:
		var paths []string
		for _, s := range ev.Scopes {
			paths = append(paths, visible(s.String()))
		}
		return fmt.Sprintf("  user edit  %s (%s)", strings.Join(paths, " "), visible(ev.Note))
	case ev.Kind == event.Message && ev.Actor == event.User:
		return fmt.Sprintf("  user says  (%s) %s", visible(ev.Note), clip(ev.Text, 72))
	case ev.Kind == event.Intervention && ev.Attempt != nil && ev.Attempt.Outcome != "attempt":
		line := fmt.Sprintf("  intervention %d %s", ev.Attempt.Order, ev.Attempt.Outcome)
		if ev.Attempt.Why != "" {
			line += ": " + clip(ev.Attempt.Why, 72)
		}
		return line
	case ev.Kind == event.Verify:
		return "  verify     " + clip(ev.Note, 200)
	}
	return ""
}

// clip is s's first line, cut to n runes with an ellipsis, its control
// characters shown as escapes: the text is the agent's (a command, a
// message, a file name), and an escape sequence in it must not drive the
// user's terminal.
func clip(s string, n int) string {
	first, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	first = visible(first)
	r := []rune(first)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	if more {
		return first + " …"
	}
	return first
}

// visible shows s's control characters (C0, DEL, C1) as Go escapes.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

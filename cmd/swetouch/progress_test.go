package main

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// TestProgressLines: an action's events make one line (the shell's read
// and edit of a command and the watcher's edit of it), the user's edit,
// message and the verdict a line each, an undecided attempt none; the
// agent's text reaches the terminal with its control characters escaped,
// so an escape sequence in a command or a file name cannot drive it.
func TestProgressLines(t *testing.T) {
	var out strings.Builder
	p := newProgress(&out)
	step := func(n int) *int { return &n }
	for _, ev := range []event.Event{
		{Actor: event.Agent, Kind: event.Read, Step: step(0), Command: "nl -ba pricing.py", Scopes: []event.Scope{event.FileScope("pricing.py")}},
		{Actor: event.Harness, Kind: event.Intervention, Attempt: &event.Attempt{Order: 1, Outcome: "attempt"}},
		{Actor: event.User, Kind: event.Edit, Note: "counter-edit", Scopes: []event.Scope{event.LineScope("pricing.py", 3, 9)}},
		{Actor: event.Harness, Kind: event.Intervention, Attempt: &event.Attempt{Order: 1, Outcome: "applied"}},
		{Actor: event.User, Kind: event.Message, Note: "tool-output", Text: "Clamp it.\nMore."},
		{Actor: event.Agent, Kind: event.Read, Step: step(1), Command: "python3 fix.py", Scopes: []event.Scope{event.FileScope("pricing.py")}},
		{Actor: event.Agent, Kind: event.Edit, Step: step(1), Command: "python3 fix.py", Scopes: []event.Scope{event.FileScope("pricing.py")}},
		{Actor: event.Agent, Kind: event.Edit, Step: step(1), Source: "watch", Command: "python3 fix.py", Scopes: []event.Scope{event.FileScope("\x1b]0;pwned\x07x.py")}},
		{Actor: event.Agent, Kind: event.Run, Step: step(2), Command: "printf '\x1b[2J'"},
		{Actor: event.Harness, Kind: event.Verify, Note: "resolved=true"},
		{Actor: event.Harness, Kind: event.Session, Note: "done"},
	} {
		p.event(ev)
	}
	p.done()
	want := []string{
		"  step 0   read       pricing.py               nl -ba pricing.py",
		"  user edit  pricing.py:3-9 (counter-edit)",
		"  intervention 1 applied",
		"  user says  (tool-output) Clamp it. …",
		`  step 1   read,edit  pricing.py \x1b]0;pwned\x07x.py python3 fix.py`,
		`  step 2   run                                 printf '\x1b[2J'`,
		"  verify     resolved=true",
	}
	if got := strings.TrimRight(out.String(), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("progress:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Error("an escape character reached the terminal")
	}
}

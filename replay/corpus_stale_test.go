package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
	"github.com/swetouch/swetouch/shell"
)

// TestCorpusStaleBase: on the dev split, imported with the base checkout,
// a read of a base file the agent had already changed is never resolved
// from the base (on this split no such file is rewritten whole, which
// would make its content known again; files the agent created are known
// only from what it wrote).
// Treating the base as the workspace as it is (the old behaviour) gives
// those reads line ranges; each is checked against what the step printed,
// and the ranges whose lines the base does not hold are counted: those
// are the wrong ranges the change removes.
func TestCorpusStaleBase(t *testing.T) {
	var differ, wrong, lined int
	for _, r := range devRuns(t) {
		id, data, f, src := r.id, r.data, r.file, r.base
		asBase, err := ImportMiniSWEAgent(data, f, ImportOptions{Shell: []shell.Option{shell.WithBase(src)}})
		if err != nil {
			t.Fatal(err)
		}
		asNow, err := ImportMiniSWEAgent(data, f, ImportOptions{Shell: []shell.Option{shell.WithFiles(src)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(asBase.Events) != len(asNow.Events) {
			t.Fatalf("%s: %d events with the base, %d without", id, len(asBase.Events), len(asNow.Events))
		}
		changed := map[string]bool{}
		for i, ev := range asBase.Events {
			now := asNow.Events[i]
			if ev.Kind == event.Read && !slices.Equal(ev.Scopes, now.Scopes) {
				differ++
				for _, sc := range ev.Scopes {
					if _, err := src.ReadFile(sc.Path); err == nil && sc.Precision == event.Line && changed[sc.Path] {
						lined++
						t.Errorf("%s step %d: %s resolved from the base after the agent changed it: %v", id, *ev.Step, sc.Path, ev.Command)
					}
				}
				for _, sc := range now.Scopes {
					if sc.Precision == event.Line && !shows(src, sc, ev) {
						wrong++
					}
				}
			}
			if ev.Kind == event.Edit {
				for _, sc := range ev.Scopes {
					changed[sc.Path] = true
				}
			}
		}
	}
	t.Logf("reads of changed files left whole-file instead of resolved from the base: %d; of the ranges the base gave them, %d name lines the step did not print", differ, wrong)
	if lined > 0 {
		t.Errorf("%d reads resolved from a stale base", lined)
	}
}

// shows reports whether the step's output holds the base's text of every
// non-blank line of the range.
func shows(src *devdata.GitFiles, sc event.Scope, ev event.Event) bool {
	b, err := src.ReadFile(sc.Path)
	if err != nil || ev.Output == nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	out := ev.Output.Text + ev.Output.Head + ev.Output.Tail
	for n := sc.Start; n <= sc.End && n <= len(lines); n++ {
		if l := strings.TrimSpace(lines[n-1]); l != "" && !strings.Contains(out, l) {
			return false
		}
	}
	return true
}

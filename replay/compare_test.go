package replay

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
)

// act builds one action's events: the command's (its kinds, exit and
// output) and the watcher's changes ("path=diff").
func act(step int, cmd, out string, exit int, kinds []event.Event, changes ...string) []event.Event {
	evs := []event.Event{{Kind: event.Run, Actor: event.Agent, Source: "shell", Step: new(step), Command: cmd, Exit: new(exit), Output: trajectory.NewOutput(out)}}
	if len(kinds) > 0 {
		evs = nil
		for i, k := range kinds {
			k.Actor, k.Source, k.Step, k.Command = event.Agent, "shell", new(step), cmd
			if i == 0 {
				k.Exit, k.Output = new(exit), trajectory.NewOutput(out)
			}
			evs = append(evs, k)
		}
	}
	for _, c := range changes {
		path, diff, _ := strings.Cut(c, "=")
		evs = append(evs, event.Event{Kind: event.Edit, Actor: event.Agent, Source: "watch", Step: new(step), Scopes: []event.Scope{event.FileScope(path)}, Diff: diff})
	}
	return evs
}

func read(path string) event.Event {
	return event.Event{Kind: event.Read, Scopes: []event.Scope{event.FileScope(path)}}
}

func trajOf(actions ...[]event.Event) *trajectory.Trajectory {
	tr := &trajectory.Trajectory{}
	for _, a := range actions {
		tr.Events = append(tr.Events, a...)
	}
	return tr
}

// TestCompareAllClassifies: with the watcher's record on both sides, every
// divergence is listed and classed: a listing of the container's files,
// a file printed the same, or changed the same way, is the environment's;
// a change that differs, a later read of that file, and a file the agent
// had changed printing otherwise change the workspace's course. A file
// the agent never changed printing otherwise differs at the base.
func TestCompareAllClassifies(t *testing.T) {
	rec := trajOf(
		act(0, "ls", "a.py\nbuild/\n", 0, nil),
		act(1, "python fix.py", "ok\n", 0, nil, "a.py=+x = 2"),
		act(2, "cat a.py", "x = 2\n", 0, []event.Event{read("a.py")}),
		act(3, "cat setup.cfg", "[pins]\n", 0, []event.Event{read("setup.cfg")}),
		act(4, "sed -i s/1/2/ b.py && echo done at 12:00", "done\n", 0, nil, "b.py=+y = 2"),
		act(5, "cat b.py", "y = 2\n", 0, []event.Event{read("b.py")}),
	)
	rep := trajOf(
		act(0, "ls", "a.py\n", 0, nil),
		act(1, "python fix.py", "ModuleNotFoundError\n", 1, nil),
		act(2, "cat a.py", "x = 1\n", 0, []event.Event{read("a.py")}),
		act(3, "cat setup.cfg", "[none]\n", 0, []event.Event{read("setup.cfg")}),
		act(4, "sed -i s/1/2/ b.py && echo done at 12:00", "done!\n", 0, nil, "b.py=+y = 2"),
		act(5, "cat b.py", "y = 2\n", 0, []event.Event{read("b.py")}),
	)
	want := []struct {
		action int
		course bool
		why    string
	}{
		{1, false, "it changed no file and read none that differs"},
		{2, true, "it changed files differently"},
		{3, true, "it read a.py, which the replay has changed differently"},
		{4, false, "it printed files the agent had not changed: they differ at the base"},
		{5, false, "it changed the same files the same way"},
	}
	ds := CompareAll(rec, rep, RootMap{}, nil)
	if len(ds) != len(want) {
		t.Fatalf("%d divergences, want %d: %+v", len(ds), len(want), ds)
	}
	for i, w := range want {
		if d := ds[i]; d.Action != w.action || d.Course != w.course || d.Why != w.why {
			t.Errorf("divergence %d: action %d course %v %q, want action %d course %v %q", i, d.Action, d.Course, d.Why, w.action, w.course, w.why)
		}
	}
	if d := Compare(rec, rep, RootMap{}); d == nil || d.Action != 1 {
		t.Errorf("Compare: first divergence %+v, want action 1", d)
	}
	if ds := CompareAll(rec, rec, RootMap{}, nil); len(ds) != 0 {
		t.Errorf("a recording against itself: %+v", ds)
	}
}

// TestAlignSteps: the replay's actions take the recorded steps in order,
// however the recording numbered them.
func TestAlignSteps(t *testing.T) {
	rec := trajOf(act(2, "ls", "", 0, nil), act(5, "cat a", "", 0, nil), act(9, "cat b", "", 0, nil))
	rep := trajOf(act(0, "ls", "", 0, nil), act(1, "cat a", "", 0, nil, "a=+x"), act(2, "cat b", "", 0, nil))
	if n := AlignSteps(rec, rep); n != 3 {
		t.Fatalf("aligned %d, want 3", n)
	}
	for _, ev := range rep.Events {
		want := map[int]int{0: 2, 1: 5, 2: 9}[*ev.Step]
		if ev.RecordedStep == nil || *ev.RecordedStep != want {
			t.Errorf("step %d (%s): recorded_step %v, want %d", *ev.Step, ev.Command, ev.RecordedStep, want)
		}
	}
}

package replay

import (
	"encoding/json"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// TestImportTimedOut: a command mini-swe-agent v1 killed on its timeout
// ran (and may have written files): it is imported as executed, with
// the output it printed, bash's exit status for a kill and the note; the
// limit it ran under is kept for the replay; a turn with no answer at all
// still did not run.
func TestImportTimedOut(t *testing.T) {
	msgs := []map[string]any{
		{"role": "system", "content": "sys"},
		{"role": "user", "content": "task"},
		{"role": "assistant", "content": "THOUGHT: run the tests\n\n```bash\npython -m pytest tests/test_a.py > log.txt; cat log.txt\n```"},
		{"role": "user", "content": "The last command <command>python -m pytest tests/test_a.py > log.txt; cat log.txt</command> timed out and has been killed.\nThe output of the command was:\n <output>\ncollected 3 items\n</output>\nPlease try another command and make sure to avoid those requiring interactive input."},
		{"role": "assistant", "content": "THOUGHT: look\n\n```bash\ncat a.py\n```"},
		{"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
	}
	info := map[string]any{"config": map[string]any{"environment": map[string]any{"timeout": 60}}}
	b, _ := json.Marshal(map[string]any{"trajectory_format": "mini-swe-agent-1", "messages": msgs, "info": info})
	tr, err := ImportMiniSWEAgent(b, "t.traj.json", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.CommandTimeout != 60 {
		t.Errorf("the recorded limit: %v s, want 60 (the replay kills at the same)", tr.Header.CommandTimeout)
	}
	var timed []event.Event
	for _, ev := range tr.Events {
		if ev.Step != nil && *ev.Step == 0 {
			timed = append(timed, ev)
		}
		if ev.Step != nil && *ev.Step == 1 {
			t.Errorf("the unanswered turn was imported: %+v", ev)
		}
	}
	if len(timed) == 0 {
		t.Fatal("the timed-out command was dropped")
	}
	ev := timed[0]
	if ev.Exit == nil || *ev.Exit != TimedOutExit || ev.Note != TimedOut || ev.Output == nil || ev.Output.Text != "collected 3 items\n" {
		t.Errorf("imported as %+v (output %+v)", ev, ev.Output)
	}
}

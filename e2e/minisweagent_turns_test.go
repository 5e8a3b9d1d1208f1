package e2e_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/trajectory"
)

// TestMiniSWEMultiTurn: the real mini-swe-agent, sandboxed, holds
// talk-discount over three turns with the scripted model server. Each turn
// ends when it submits; the next starts mini again with the previous
// turn's trajectory as its messages and the user's message added as mini's
// own interactive agent adds a new task. Turn 2's first request carries
// turn 1's actions and the user's answer; turn 1's reply is what the agent
// said as it submitted; each turn's commands are steps of that turn in
// swetouch's trajectory, and mini's own trajectory holds all three turns.
func TestMiniSWEMultiTurn(t *testing.T) {
	testsupport.Slow(t)
	if _, _, err := agents.Find("mini-swe-agent"); err != nil {
		testsupport.Missing(t, testsupport.Agents, "mini-swe-agent is not installed (scripts/install-agents.sh): %v", err)
	}
	script := filepath.Join(examplesDir, "agents", "mini-swe-agent", "talk-discount.script.json")
	s, err := modelserver.LoadScript(script)
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	// a script that stops matching would have mini ask again and again
	res, out := runConversation(t, "talk-discount", nil, "--agent", "mini-swe-agent", "--model-url", ts.URL, "--step-limit", "20")
	resumed(t, srv, res, out)
	if t.Failed() {
		return
	}
	// mini's own words for a user's next task, with turn 1's command in
	// the same request
	for n := 2; n <= 3; n++ {
		msg := "The user added a new task: " + res.Turns[n-1].UserMessage
		found := false
		for _, e := range srv.Exchanges() {
			body := string(e.Request)
			if strings.Contains(body, jsonEscaped(msg)) {
				found = true
				if !strings.Contains(body, jsonEscaped("cat pricing.py")) {
					t.Errorf("turn %d's request lacks turn 1's command", n)
				}
				break
			}
		}
		if !found {
			t.Errorf("no request holds %q as mini's new task", msg)
		}
	}
	// each turn's commands are its steps in swetouch's trajectory
	tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := scriptedCommands(s)
	turns := replay.Turns(tr)
	if len(turns) != 3 {
		t.Fatalf("%d turns in the trajectory, want 3", len(turns))
	}
	var got []string
	for i, turn := range turns {
		var cmds []string
		for _, a := range turn.Actions {
			cmds = append(cmds, a.Command)
		}
		if len(cmds) != 2 || cmds[1] != "echo "+replay.SubmitMarker {
			t.Errorf("turn %d's steps %q, want a command and the submission", i+1, cmds)
		}
		got = append(got, cmds...)
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("steps %q, scripted %q", got, want)
	}
	// mini's own trajectory: one conversation of the three turns
	data, err := os.ReadFile(filepath.Join(out, agents.MiniSWETrajectory))
	if err != nil {
		t.Fatalf("its trajectory was not kept: %v", err)
	}
	imported, err := replay.ImportMiniSWEAgent(data, agents.MiniSWETrajectory, replay.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, a := range replay.Actions(imported) {
		kept = append(kept, a.Command)
	}
	if strings.Join(kept, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("mini's trajectory holds %q, scripted %q", kept, want)
	}
}

// scriptedCommands are a script's @shell commands in order.
func scriptedCommands(s *modelserver.Script) []string {
	var want []string
	for _, turn := range s.Turns {
		for _, c := range turn.Calls {
			var a struct{ Command string }
			json.Unmarshal(c.Args, &a)
			want = append(want, a.Command)
		}
	}
	return want
}

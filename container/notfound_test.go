package container

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The verifier's "a program the tests need is not here" (test.sh's exit
// 126 or 127) is no verdict only when the pristine image says the same:
// an agent that makes the test command exit 127, or tries to take the
// program away, is unresolved, not left out of the score.

// fakeNotFound are agents that try to turn their failure into test.sh's
// exit 127, each by another way.
var fakeNotFound = map[string]string{
	// the tests' process exits 127 as soon as pytest loads the root's
	// conftest.py
	"conftest": `printf 'import os\nos._exit(127)\n' > conftest.py`,
	// the test command's program taken away, or made unrunnable: the
	// image's system folders are read-only to the agent, so these fail,
	// and the conftest.py does the rest
	"remove": `rm -f "$(command -v pytest)" /usr/bin/pytest-3; chmod -x /usr/bin/python3*; printf 'import os\nos._exit(126)\n' > conftest.py`,
	// a pytest package in the checkout, which a python -m pytest would
	// import in the real one's place
	"shadow": `mkdir -p pytest && printf 'import sys\nsys.exit(127)\n' > pytest/__main__.py && : > pytest/__init__.py && printf 'import os\nos._exit(127)\n' > conftest.py`,
}

// TestNotFoundCannotBeFakedInContainer: single-turn, each faking agent is
// resolved false, since the reference solution on the start the run took
// before the agent ran passes, which the reason says; a program the image
// really lacks is no verdict (the control).
func TestNotFoundCannotBeFakedInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	img := fixtureImage(t, rt)
	const id = "pallets__flask-9001"
	tasks := filepath.Join(t.TempDir(), "tasks")
	swetouchCmd(t, "tasks", "swebench", "--instances", fixtureRows(t, in, id), "--image", img, "--out", tasks)
	t.Run("control", func(t *testing.T) {
		// a program the image really lacks: no verdict, since the
		// reference solution on the pristine start cannot run either
		control := filepath.Join(t.TempDir(), id)
		if err := os.CopyFS(control, os.DirFS(filepath.Join(tasks, id))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(control, "tests", "test.sh"), []byte("#!/bin/bash\nexec swetouch-no-such-program\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, r := trial(t, control, "/bin/true")
		if r.Resolved != nil || !strings.Contains(r.Reason, "127") {
			t.Errorf("resolved %v (%s), want null naming exit 127", r.Resolved, r.Reason)
		}
	})
	for name, body := range fakeNotFound {
		t.Run(name, func(t *testing.T) {
			out, r := trial(t, filepath.Join(tasks, id), "/bin/bash", agentScript(t, body+"\n"))
			if r.Resolved == nil || *r.Resolved || !strings.Contains(r.Reason, "reference solution") {
				t.Errorf("resolved %v (%s), want false\n%s", r.Resolved, r.Reason, verifyOutput(t, out))
			}
		})
	}
}

// TestNotFoundCannotBeFakedInConversation: a converted SWE-bench task,
// whose user runs the tests after each turn: an agent whose first turn
// makes them exit 127 gets that turn's verdict from the tests (ongoing,
// every test failing), not an infrastructure error that ends the
// conversation without a verdict.
func TestNotFoundCannotBeFakedInConversation(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	img := fixtureImage(t, rt)
	root := t.TempDir()
	const id = "pallets__flask-9001"
	single, conv := filepath.Join(root, "single"), filepath.Join(root, "tasks", id)
	swetouchCmd(t, "tasks", "swebench", "--instances", fixtureRows(t, in, id), "--image", img, "--out", single)
	swetouchCmd(t, "convert", "--task", filepath.Join(single, id), "--out", conv, "--budget", "2")
	plan := filepath.Join(root, "plan.json")
	b, _ := json.Marshal(map[string]any{"task": id, "turns": []map[string]any{
		{"steps": []map[string]string{{"run": fakeNotFound["conftest"]}}, "reply": "done"},
		{"steps": []map[string]string{{"run": "cat conftest.py"}}, "reply": "done again"},
	}})
	if err := os.WriteFile(plan, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "run")
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), "run", "--runtime", testRuntime(), "--task", conv, "--out", out, "--",
		InsideSwetouch, "agent", "script", "--plan", plan, "--behaviour", "careful", "--session", "{session}", "--message", "{instruction}")
	log, _ := c.CombinedOutput()
	var res struct {
		Resolved *bool  `json:"resolved"`
		Reason   string `json:"reason"`
		Turns    []struct {
			Verdict string `json:"verdict"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(readFile(t, out, "result.json")), &res); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	var verdicts []string
	for _, tu := range res.Turns {
		verdicts = append(verdicts, tu.Verdict)
	}
	if res.Resolved == nil || *res.Resolved || strings.Join(verdicts, ",") != "ongoing,unresolved" {
		t.Errorf("resolved %v (%s), turns %v: want false, ongoing then unresolved\n%s", res.Resolved, res.Reason, verdicts, log)
	}
}

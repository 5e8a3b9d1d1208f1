package main

import (
	"fmt"
	"slices"

	"github.com/swetouch/swetouch/task"
)

// listedSplit is a SWE-bench task's acceptance and regression tests:
// its FAIL_TO_PASS and PASS_TO_PASS (tests/config.json), which SWE-bench
// verified in the instance's own environment. A task whose code lives in
// its image cannot be tested here (the image's environment is not the
// host's), so its lists are the split; each turn's verdict then comes
// from the per-test outcomes test.sh writes in the trial's container.
func listedSplit(t *task.Task) (acceptance, regression []string, err error) {
	if !t.Listed() {
		return nil, nil, badInput("--task %s: its code lives in its image (%s), which convert does not run; it needs tests/config.json's FAIL_TO_PASS and PASS_TO_PASS (swetouch tasks swebench writes them)", t.Dir, t.Image)
	}
	if len(t.FailToPass) == 0 {
		return nil, nil, badInput("--task %s: tests/config.json: field FAIL_TO_PASS: empty: nothing for the user to ask for", t.Dir)
	}
	return slices.Clone(t.FailToPass), slices.Clone(t.PassToPass), nil
}

// convertedTOML is the multi-turn task's task.toml: its name and the
// verifier's time, and for a task whose code lives in its image, the
// image and its checkout, so the new task runs where the old one did.
func convertedTOML(t *task.Task) string {
	s := fmt.Sprintf("version = \"1.0\"\n\n[metadata]\nname = %q\n\n[verifier]\ntimeout_sec = %d\n", t.Name, int(t.Timeout.Seconds()))
	if t.Runner != "" {
		s += fmt.Sprintf("runner = %q\n", t.Runner)
	}
	if t.Image != "" {
		s += fmt.Sprintf("\n[environment]\ndocker_image = %q\n", t.Image)
		if t.Workdir != "" {
			s += fmt.Sprintf("workdir = %q\n", t.Workdir)
		}
	}
	return s
}

package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Plan is what a scripted agent does on one task: its steps, and for the
// careful behaviour, the steps it takes when the user changes the code.
type Plan struct {
	Task      string `json:"task"`
	Steps     []Step `json:"steps"`
	Reconcile []Step `json:"reconcile"`
}

// Step is one shell command and why the agent runs it.
type Step struct {
	Why string `json:"why,omitempty"`
	Run string `json:"run"`
}

// Behaviours of the scripted agent.
const (
	Naive   = "naive"   // keeps the user's edit: never looks at messages
	Careful = "careful" // on a user message, inspects the change (git diff), reconciles, carries on
)

// LoadPlan reads a plan file.
func LoadPlan(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(p.Steps) == 0 {
		return nil, fmt.Errorf("%s: field steps: empty", path)
	}
	return &p, nil
}

// RunScripted plays the plan the way a real agent works: every step is a
// `bash -c` found on PATH (so it goes through the shim when one is
// installed), run in the current directory, its output read back. A
// careful agent that sees a user message in an output reconciles before
// going on. The transcript goes to log.
func RunScripted(ctx context.Context, p *Plan, behaviour string, log io.Writer) error {
	if behaviour != Naive && behaviour != Careful {
		return fmt.Errorf("behaviour %q: want naive or careful", behaviour)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return err
	}
	run := func(s Step) (string, error) {
		fmt.Fprintf(log, "$ %s\n", s.Run)
		cmd := exec.CommandContext(ctx, bash, "-c", s.Run)
		out, err := cmd.CombinedOutput()
		log.Write(out)
		var ee *exec.ExitError
		if err != nil && !asExit(err, &ee) {
			return string(out), err
		}
		return string(out), nil
	}
	for _, s := range p.Steps {
		out, err := run(s)
		if err != nil {
			return err
		}
		if behaviour == Careful && strings.Contains(out, "<user-message>") {
			fmt.Fprintln(log, "# the user changed the code: reconciling")
			for _, r := range p.Reconcile {
				if _, err := run(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func asExit(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// Package scripted is the two scripted agents, naive and careful: each
// plays a plan of shell steps for a task, offline, through swetouch
// itself (`swetouch agent script`), and registers as an agent like any
// other. naive keeps the user's edit and never reads a message; careful,
// told of a change, looks at it, reconciles and carries on.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/agents"
)

// Plan is what a scripted agent does on one task: its steps, and for the
// careful behaviour, the steps it takes when the user changes the code.
// A plan for a conversation has turns instead of steps.
type Plan struct {
	Task      string     `json:"task"`
	Steps     []Step     `json:"steps,omitempty"`
	Reconcile []Step     `json:"reconcile,omitempty"`
	Turns     []PlanTurn `json:"turns,omitempty"`
}

// PlanTurn is what the agent does in one turn of a conversation: its
// steps and its reply to the user (a question, a report). When, if set,
// is what the user's last message must say for the agent to play this
// turn: a turn whose When the message does not hold is passed over, so a
// plan can react to the user's answer.
//
// Only, if set, is the one behaviour that plays the turn (naive or
// careful): the two scripted agents on one plan can work differently.
type PlanTurn struct {
	When  string `json:"when,omitempty"`
	Only  string `json:"only,omitempty"`
	Steps []Step `json:"steps,omitempty"`
	Reply string `json:"reply"`
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
	switch {
	case len(p.Steps) == 0 && len(p.Turns) == 0:
		return nil, fmt.Errorf("%s: field steps: empty (give steps, or turns for a conversation)", path)
	case len(p.Steps) > 0 && len(p.Turns) > 0:
		return nil, fmt.Errorf("%s: field turns: a plan has steps or turns, not both", path)
	}
	for i, t := range p.Turns {
		if strings.TrimSpace(t.Reply) == "" {
			return nil, fmt.Errorf("%s: field turns[%d].reply: empty (every turn ends with what the agent tells the user)", path, i)
		}
		if t.Only != "" && t.Only != Naive && t.Only != Careful {
			return nil, fmt.Errorf("%s: field turns[%d].only: want naive or careful, got %q", path, i, t.Only)
		}
	}
	return &p, nil
}

// RunScripted plays the plan the way a real agent works: every step is a
// `bash -c` found on PATH (so it goes through the shim when one is
// installed), run in the current directory, its output read back. A
// careful agent that sees a user message in an output reconciles before
// going on. The transcript goes to log.
func RunScripted(ctx context.Context, p *Plan, behaviour string, log io.Writer) error {
	if len(p.Turns) > 0 {
		return RunTurn(ctx, p, behaviour, "", "", log)
	}
	return runSteps(ctx, p, p.Steps, behaviour, log)
}

// RunTurn plays one turn of a conversation plan: session is the id the
// agent reported at its last turn's end ("" for the first turn), message
// what the user said since. It plays the first turn from the session's on
// whose When the message holds, then reports its reply and its session
// on the line protocol (agents.ReplyKey, agents.SessionKey) that
// swetouch run reads from an agent it has no preset for.
func RunTurn(ctx context.Context, p *Plan, behaviour, sess, message string, log io.Writer) error {
	from := 0
	if sess != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(sess, "turn-"))
		if err != nil || n < 0 {
			return fmt.Errorf("session %q: not one this agent reported", sess)
		}
		from = n
	}
	reply, next := "I have nothing more to change.", from
	for i := from; i < len(p.Turns); i++ {
		t := p.Turns[i]
		if t.Only != "" && t.Only != behaviour || t.When != "" && !strings.Contains(strings.ToLower(message), strings.ToLower(t.When)) {
			continue
		}
		if err := runSteps(ctx, p, t.Steps, behaviour, log); err != nil {
			return err
		}
		reply, next = t.Reply, i+1
		break
	}
	fmt.Fprintf(log, "%s\n", protocolLine(agents.ReplyKey, reply))
	fmt.Fprintf(log, "%s\n", protocolLine(agents.SessionKey, fmt.Sprintf("turn-%d", next)))
	return nil
}

func protocolLine(key, value string) string {
	b, _ := json.Marshal(map[string]string{key: value})
	return string(b)
}

// runSteps runs steps as the plan's agent, reconciling after a user
// message when careful.
func runSteps(ctx context.Context, p *Plan, steps []Step, behaviour string, log io.Writer) error {
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
	for _, s := range steps {
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

func init() {
	for _, name := range []string{Naive, Careful} {
		agents.Register(agents.Agent{Name: name,
			// a conversation's turns resume it by the line protocol
			Command: func(l agents.Launch, instruction, _ string) []string {
				return []string{l.Swetouch, "agent", "script", "--plan", PlanFile(l.Plans, l.Task), "--behaviour", name, "--session", "{session}", "--message", instruction}
			},
			Files: func(l agents.Launch) []string { return []string{PlanFile(l.Plans, l.Task)} },
		})
	}
}

// PlanFile is a task's plan in a folder of plans.
func PlanFile(plans, task string) string { return filepath.Join(plans, task+".json") }

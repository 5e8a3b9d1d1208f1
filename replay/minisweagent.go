package replay

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/shell"
)

// Import formats.
const (
	FormatAuto = "auto"
	MiniSWE1   = "mini-swe-agent-1"
	MiniSWE2   = "mini-swe-agent-2"
)

// SubmitMarker starts the command with which mini-swe-agent submits.
const SubmitMarker = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"

type msaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []msaToolCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Extra      struct {
		Actions []struct {
			Command    string `json:"command"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"actions"`
		RawOutput  *string `json:"raw_output"`
		Returncode *int    `json:"returncode"`
		Submission string  `json:"submission"`
	} `json:"extra"`
}

type msaToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type msaFile struct {
	Format     string       `json:"trajectory_format"`
	InstanceID string       `json:"instance_id"`
	Messages   []msaMessage `json:"messages"`
	Info       struct {
		ExitStatus  string `json:"exit_status"`
		Submission  string `json:"submission"`
		MiniVersion string `json:"mini_version"`
		Config      struct {
			Model struct {
				ModelName string `json:"model_name"`
			} `json:"model"`
			Environment struct {
				Timeout float64 `json:"timeout"`
			} `json:"environment"`
		} `json:"config"`
	} `json:"info"`
}

// text returns a message's content as text: a string, or the text parts of
// a list of content blocks.
func (m msaMessage) text() string {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// ImportOptions configure an import.
type ImportOptions struct {
	Format string
	// Classifier options, e.g. shell.WithFiles for a base checkout.
	Shell []shell.Option
}

// ImportMiniSWEAgent converts a mini-swe-agent trajectory (v1: one fenced
// bash block per assistant turn; v2: tool calls) into a trajectory. Step is
// the 0-based index of the assistant turn that issued a command, counting
// every assistant turn; turns that were not executed yield no command event.
func ImportMiniSWEAgent(data []byte, name string, o ImportOptions) (*trajectory.Trajectory, error) {
	var f msaFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a mini-swe-agent trajectory: %w", name, err)
	}
	if len(f.Messages) == 0 {
		return nil, fmt.Errorf("%s: field messages: missing or empty", name)
	}
	format := o.Format
	if format == "" || format == FormatAuto {
		format = MiniSWE1
		for _, m := range f.Messages {
			if m.Role == "assistant" && (len(m.ToolCalls) > 0 || len(m.Extra.Actions) > 0) {
				format = MiniSWE2
				break
			}
			if m.Role == "tool" {
				format = MiniSWE2
				break
			}
		}
	}
	im := &importer{
		sess: shell.NewSession(o.Shell...),
		t: &trajectory.Trajectory{Header: trajectory.Header{
			Format: trajectory.Format, Version: trajectory.Version, Task: f.InstanceID,
			Agent: "mini-swe-agent " + f.Info.MiniVersion + " " + f.Info.Config.Model.ModelName, Source: format,
			Root: "/testbed", // SWE-bench's containers
			// a malformed timeout is no limit of its own: the replay's default
			CommandTimeout: max(f.Info.Config.Environment.Timeout, 0),
		}},
	}
	im.t.Header.Agent = strings.Join(strings.Fields(im.t.Header.Agent), " ")
	switch format {
	case MiniSWE1:
		im.v1(f.Messages)
	case MiniSWE2:
		im.v2(f.Messages)
	default:
		return nil, fmt.Errorf("%s: unknown format %q (want auto, %s or %s)", name, format, MiniSWE1, MiniSWE2)
	}
	return im.t, nil
}

type importer struct {
	sess *shell.Session
	t    *trajectory.Trajectory
	seq  int64
}

var bashBlock = regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```")

func (im *importer) v1(msgs []msaMessage) {
	step := -1
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		step++
		blocks := bashBlock.FindAllStringSubmatch(m.text(), -1)
		if len(blocks) != 1 {
			continue // a format error: nothing ran
		}
		cmd := blocks[0][1]
		var next string
		if i+1 < len(msgs) && msgs[i+1].Role != "assistant" {
			next = msgs[i+1].text()
		}
		if isSubmit(cmd) {
			im.submit(step, 0, cmd, next)
			continue
		}
		obs, exit, ok := parseEnvelope(next)
		if !ok {
			if obs, ok := parseTimeout(next); ok {
				// it ran until it was killed, and may have written files
				im.command(step, 0, cmd, obs, TimedOutExit, TimedOut)
			}
			continue // no <returncode>: the turn did not execute
		}
		im.command(step, 0, cmd, obs, exit, "")
	}
}

func (im *importer) v2(msgs []msaMessage) {
	results := map[string]msaMessage{}
	for _, m := range msgs {
		if m.Role == "tool" && m.ToolCallID != "" {
			results[m.ToolCallID] = m
		}
	}
	step := -1
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		step++
		type action struct{ cmd, id string }
		var acts []action
		for _, a := range m.Extra.Actions {
			acts = append(acts, action{a.Command, a.ToolCallID})
		}
		if len(acts) == 0 {
			for _, tc := range m.ToolCalls {
				var args struct {
					Command string `json:"command"`
				}
				if json.Unmarshal([]byte(tc.Function.Arguments), &args) == nil && args.Command != "" {
					acts = append(acts, action{args.Command, tc.ID})
				}
			}
		}
		for k, a := range acts {
			actionNo := 0
			if len(acts) > 1 {
				actionNo = k + 1
			}
			if isSubmit(a.cmd) {
				sub := ""
				for _, n := range msgs[i+1:] {
					if n.Role == "exit" {
						sub = n.text()
						break
					}
				}
				im.submit(step, actionNo, a.cmd, sub)
				continue
			}
			res, ok := results[a.id]
			if !ok && a.id == "" && len(acts) == 1 && i+1 < len(msgs) && msgs[i+1].Role == "user" {
				// a text-based config's action (2.x, no tool call): its
				// observation is the next user message
				res, ok = msgs[i+1], true
			}
			if !ok {
				continue // never executed
			}
			obs, exit, ok := parseEnvelope(res.text())
			if !ok && res.Extra.RawOutput != nil {
				obs, ok = shell.Observation{Text: *res.Extra.RawOutput}, true
				if res.Extra.Returncode != nil {
					exit = *res.Extra.Returncode
				}
			}
			if !ok {
				continue
			}
			im.command(step, actionNo, a.cmd, obs, exit, "")
		}
	}
}

func isSubmit(cmd string) bool {
	t := strings.TrimSpace(cmd)
	return strings.HasPrefix(t, "echo "+SubmitMarker) || strings.HasPrefix(t, "echo '"+SubmitMarker) || strings.HasPrefix(t, `echo "`+SubmitMarker)
}

func (im *importer) next() int64 { im.seq++; return im.seq }

func (im *importer) command(step, action int, cmd string, obs shell.Observation, exit int, note string) {
	res := im.sess.ClassifyOutput(cmd, obs)
	text := obs.Text
	if obs.Elided {
		text = obs.Text + "\n[…elided…]\n" + obs.Tail
	}
	for _, ev := range res.Events(cmd) {
		ev.Seq = im.next()
		ev.Source, ev.Actor = "import", event.Agent
		ev.Step = new(step)
		ev.Action = action
		ev.Exit = new(exit)
		ev.Output = trajectory.NewOutput(text)
		if note != "" && ev.Note == "" {
			ev.Note = note
		}
		if obs.Elided && ev.Output != nil {
			ev.Output.Elided = true
		}
		im.t.Events = append(im.t.Events, ev)
	}
}

// submit records the final submission: the command, and a session event
// carrying the submitted diff.
func (im *importer) submit(step, action int, cmd, diff string) {
	im.t.Events = append(im.t.Events,
		event.Event{Seq: im.next(), Source: "import", Actor: event.Agent, Kind: event.Run, Step: new(step), Action: action, Command: cmd, Note: "submission"},
		event.Event{Seq: im.next(), Source: "import", Actor: event.Agent, Kind: event.Session, Step: new(step), Action: action, Note: "submitted", Diff: diff},
	)
}

// TimedOutExit is the exit status an imported command that timed out
// and was killed gets (bash's for a SIGKILL), with the note TimedOut.
const TimedOutExit = 137

// TimedOut notes an imported command that timed out and was killed.
const TimedOut = "timed out and killed"

// timedOutPrefix starts mini-swe-agent's answer to a command that timed
// out (its timeout_template): no <returncode>, the output so far.
const timedOutPrefix = "The last command <command>"

// parseTimeout reads mini-swe-agent v1's timeout answer: the command ran
// until it was killed, and what it printed meanwhile.
func parseTimeout(s string) (shell.Observation, bool) {
	if !strings.HasPrefix(strings.TrimSpace(s), timedOutPrefix) || !strings.Contains(s, "timed out and has been killed") {
		return shell.Observation{}, false
	}
	out, _ := between(s, "<output>", "</output>")
	return shell.Observation{Text: strings.TrimPrefix(trimNL(out), "\n")}, true
}

// parseEnvelope reads mini-swe-agent's observation envelope:
// <returncode>N</returncode> then <output>…</output>, or for long outputs
// <output_head>…</output_head><elided_chars>…</elided_chars><output_tail>…</output_tail>.
func parseEnvelope(s string) (shell.Observation, int, bool) {
	rc, ok := between(s, "<returncode>", "</returncode>")
	if !ok {
		return shell.Observation{}, 0, false
	}
	exit, err := strconv.Atoi(strings.TrimSpace(rc))
	if err != nil {
		return shell.Observation{}, 0, false
	}
	if out, ok := between(s, "<output>", "</output>"); ok {
		return shell.Observation{Text: trimNL(out)}, exit, true
	}
	head, okH := between(s, "<output_head>", "</output_head>")
	tail, okT := between(s, "<output_tail>", "</output_tail>")
	if okH || okT {
		return shell.Observation{Text: trimNL(head), Tail: trimNL(tail), Elided: true}, exit, true
	}
	return shell.Observation{}, exit, true
}

// trimNL drops the newline the envelope adds after the opening tag.
func trimNL(s string) string { return strings.TrimPrefix(s, "\n") }

func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.LastIndex(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

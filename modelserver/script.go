package modelserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/jsonerr"
)

// Script is what the fake model says, turn by turn.
type Script struct {
	Turns []Turn `json:"turns"`
	// Final is the text answered once the turns are used up (default
	// "done"), and to requests that offer no tools (an agent's side
	// requests: titles, summaries), which never consume a turn.
	Final string `json:"final,omitempty"`
}

// Turn is one model answer: tool calls, or text. A text answer ends the
// agent's turn; when the agent resumes its session for the user's next
// message, the text found in the request's history marks it served, so it
// must be one the agent's own prompt does not hold.
type Turn struct {
	// When makes the turn wait: requests that do not meet it get the
	// Final text (or, if they offer tools, are answered by the turn only
	// when they do).
	When  *Cond  `json:"when,omitempty"`
	Calls []Call `json:"calls,omitempty"`
	Text  string `json:"text,omitempty"`
}

// Call is one tool call. Name "@shell" stands for the agent's own shell
// tool, whichever the request offers (Bash, shell, exec_command,
// run_shell_command, bash), with Args {"command": "…"} shaped for it.
// "@tool:NAME" stands for the offered tool NAME under whatever prefix the
// agent gives it (an MCP server's tools are mcp__fs__NAME in Claude Code,
// fs_NAME in opencode): the offered name equal to NAME or ending in _NAME.
type Call struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Cond is a condition on an incoming request. All set fields must hold.
type Cond struct {
	Contains           string `json:"contains,omitempty"`             // the raw request body contains this
	LastResultContains string `json:"last_result_contains,omitempty"` // the latest tool result mentions this
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScript(b, path)
}

// ParseScript parses a script; name is used in errors.
func ParseScript(b []byte, name string) (*Script, error) {
	var s Script
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, jsonerr.Locate(name, b, 0, "", err)
	}
	for i, t := range s.Turns {
		if len(t.Calls) == 0 && t.Text == "" {
			return nil, fmt.Errorf("%s: turns[%d]: neither calls nor text", name, i)
		}
		for k, c := range t.Calls {
			if c.Name == "" {
				return nil, fmt.Errorf("%s: turns[%d].calls[%d].name: empty", name, i, k)
			}
			if len(c.Args) == 0 {
				s.Turns[i].Calls[k].Args = json.RawMessage("{}")
			} else if !json.Valid(c.Args) || !strings.HasPrefix(strings.TrimSpace(string(c.Args)), "{") {
				return nil, fmt.Errorf("%s: turns[%d].calls[%d].args: want a JSON object", name, i, k)
			}
		}
	}
	if s.Final == "" {
		s.Final = "done"
	}
	return &s, nil
}

func (c *Cond) holds(req *request) bool {
	if c == nil {
		return true
	}
	if c.Contains != "" && !strings.Contains(string(req.body), c.Contains) {
		return false
	}
	if c.LastResultContains != "" && !strings.Contains(req.lastResult, c.LastResultContains) {
		return false
	}
	return true
}

// resolve maps "@shell" to the shell tool the request offers: the
// first registered agent's (agents.ShellTools) that it offers.
func resolve(c Call, offered []string) (string, json.RawMessage) {
	if name, ok := strings.CutPrefix(c.Name, "@tool:"); ok {
		for _, o := range offered {
			if o == name || strings.HasSuffix(o, "_"+name) {
				return o, c.Args
			}
		}
		return name, c.Args
	}
	if c.Name != "@shell" {
		return c.Name, c.Args
	}
	var a struct {
		Command string `json:"command"`
	}
	json.Unmarshal(c.Args, &a)
	// each agent's own shell tool, as its file in package agents says
	for _, t := range agents.ShellTools() {
		for _, o := range offered {
			if o == t.Name {
				b, _ := json.Marshal(t.Args(a.Command))
				return t.Name, b
			}
		}
	}
	return "Bash", c.Args
}

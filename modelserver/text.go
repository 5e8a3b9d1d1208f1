package modelserver

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Text actions: a chat request that offers no tools but whose system
// message asks for each command in a fenced block (mini-swe-agent v1's
// "```bash", its 2.x text-based config's "```mswea_bash_command") is an
// agent's, not a side request: it gets the script's turns with each @shell
// call written as a fenced block of that label in the text. Such an
// agent's history carries no call ids, so its place in the script is the
// number of answers it holds.

// actionFence finds the fence's label in a system message's format
// example: a code block whose label names bash, on a line of its own.
var actionFence = regexp.MustCompile("```([A-Za-z0-9_]*bash[A-Za-z0-9_]*)[ \t]*\n")

// parseTextChat reads a tool-less chat request as a text-action agent's:
// nil when its system message asks for no fenced command.
func parseTextChat(body []byte) *request {
	var b struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &b) != nil || len(b.Messages) == 0 || b.Messages[0].Role != "system" {
		return nil
	}
	m := actionFence.FindStringSubmatch(textOf(b.Messages[0].Content))
	if m == nil {
		return nil
	}
	r := &request{provider: "chat", model: b.Model, body: body, stream: b.Stream, fence: m[1]}
	for _, msg := range b.Messages {
		switch msg.Role {
		case "assistant":
			r.rounds++
		case "user":
			if r.rounds > 0 {
				// an observation: the command's output
				r.lastResult = textOf(msg.Content)
			}
		}
	}
	return r
}

// textActions is a turn as a text-action agent reads it: its text, then
// each @shell call's command in a block of the request's fence. A call of
// another tool has no text form and is left out.
func textActions(req *request, t Turn) string {
	var b strings.Builder
	b.WriteString(t.Text)
	for _, c := range t.Calls {
		if c.Name != "@shell" {
			continue
		}
		var a struct {
			Command string `json:"command"`
		}
		json.Unmarshal(c.Args, &a)
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("```" + req.fence + "\n" + a.Command + "\n```")
	}
	return b.String()
}

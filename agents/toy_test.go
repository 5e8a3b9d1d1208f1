package agents_test

import (
	"encoding/json"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
)

// toy is a fifth agent written as docs/adding-an-agent.md says, in one
// file: its command line, its endpoint, the reader of its event stream,
// how it resumes, its shell tool. TestContract runs its contract because
// it is registered; nothing else names it.
func init() {
	agents.Register(agents.Agent{
		Name: "toy", Bin: "toy-agent", OfflineModel: "toy-1",
		Command: func(l agents.Launch, instruction, model string) []string {
			return []string{l.Bin, "--json", "--model", model, "--prompt", instruction}
		},
		Env: func(url, _, _ string) []string { return []string{"TOY_BASE_URL=" + url} },
		Observe: func(ws string, line []byte) []event.Event {
			var ev struct {
				Read string `json:"read"`
			}
			if json.Unmarshal(line, &ev) != nil || ev.Read == "" {
				return nil
			}
			return []event.Event{{Kind: event.Read, Source: "toy", Actor: event.Agent, Tool: "read", Scopes: []event.Scope{event.FileScope(ev.Read)}}}
		},
		Turns: &agents.Turns{
			Session: func(line []byte) string {
				var ev struct {
					Session string `json:"toy_session"`
				}
				json.Unmarshal(line, &ev)
				return ev.Session
			},
			Reply: func(sofar string, line []byte) string { return sofar },
			Resume: func(argv []string, session string) []string {
				return append(append([]string{}, argv...), "--continue", session)
			},
		},
		Shell: []agents.ShellTool{{Name: "toy_shell", Args: func(c string) map[string]any { return map[string]any{"script": c} }}},
	})
}

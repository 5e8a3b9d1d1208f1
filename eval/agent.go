package eval

import (
	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/task"
)

// Registered is a registered agent as an evaluation starts it: l is what
// every trial shares (the binary, the endpoint, the model, extra flags,
// MCP servers, the plans); each trial adds its task, its scratch folder
// and, with a recorder, the recorder's endpoint.
func Registered(a *agents.Agent, l agents.Launch) Agent {
	return Agent{Name: a.Name, Start: func(t *task.Task, scratch, modelURL string) (agents.Invocation, error) {
		l := l
		l.Task, l.Scratch = t.Name, scratch
		if modelURL != "" {
			l.ModelURL = modelURL // the trial's recorder, in front of --model-upstream
		}
		return a.Start(l)
	}}
}

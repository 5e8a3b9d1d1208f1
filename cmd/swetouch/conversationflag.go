package main

import (
	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/conversation"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
)

// conversationFor is the run's conversation when the task is a
// multi-turn one (a conversation.json beside task.toml), else nil: its
// user, with the persona chain drawn from m (nil: the shipped model),
// testing in sb; and how the agent resumes its session: the preset's
// way, or, for a command of the user's own (p nil), the line protocol
// and {session}.
func conversationFor(t *task.Task, m *conversation.Model, p *agents.Preset, sb sandbox.Setup) (*session.Conversation, error) {
	ct, err := conversation.LoadTask(t, m)
	if err != nil {
		return nil, badInput("--task: %v", err)
	}
	if ct == nil {
		return nil, nil
	}
	conv := &session.Conversation{Opening: ct.Package.Opening,
		User: func(ws string) session.Talker { return ct.User(ws, task.WithSandbox(sb)) }}
	if p != nil {
		if p.Turns == nil {
			return nil, badInput("--agent %s: swetouch cannot resume its session yet, so it cannot hold a conversation (%s)", p.Name, t.Dir)
		}
		conv.Session, conv.Reply, conv.Resume = p.Turns.Session, p.Turns.Reply, p.Turns.Resume
	}
	return conv, nil
}

// personasModel is the --personas model (nil: none given).
func personasModel(path string) (*conversation.Model, error) {
	if path == "" {
		return nil, nil
	}
	m, err := conversation.LoadModel(path)
	if err != nil {
		return nil, badInput("--personas: %v", err)
	}
	return m, nil
}

// personasFlag names the persona transition model of multi-turn tasks.
func personasFlag(c *cobra.Command, personas *string) {
	c.Flags().StringVar(personas, "personas", "", "a persona transition model (JSON, as conversation/personas.json) to draw a multi-turn task's persona chain from, instead of the shipped one")
}

// relayConversation is the user of a multi-turn task for a relay that
// plays it in place (the tests run unsandboxed: the editor started the
// agent, and the session says sandbox none).
func relayConversation(dir string) (func(workspace string) session.Talker, error) {
	t, err := task.Load(dir)
	if err != nil {
		return nil, badInput("--conversation: %v", err)
	}
	ct, err := conversation.LoadTask(t, nil)
	switch {
	case err != nil:
		return nil, badInput("--conversation: %v", err)
	case ct == nil:
		return nil, badInput("--conversation: %s has no %s", dir, conversation.File)
	}
	return func(ws string) session.Talker { return ct.User(ws) }, nil
}

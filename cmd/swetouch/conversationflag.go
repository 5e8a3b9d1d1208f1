package main

import (
	"github.com/swetouch/swetouch/run"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// conversationFor is the run's conversation when the task is a
// multi-turn one (a conversation.json beside task.toml), else nil: its
// user, with the persona chain drawn from m (nil: the shipped model),
// testing in sb. The agent resumes its session its own way (its Turns),
// or, for a command of the user's own (a nil), by the line protocol.
func conversationFor(t *task.Task, m *conversation.Model, models conversation.Models, a *agents.Agent, sb sandbox.Setup, opts ...conversation.LoadOption) (*run.Conversation, error) {
	ct, err := conversation.LoadTask(t, m, opts...)
	if err != nil {
		return nil, badInput("--task: %v", err)
	}
	if ct == nil {
		return nil, nil
	}
	ct.Models = models.ForTask(t.Name)
	conv := &run.Conversation{Opening: ct.Package.Opening,
		User: func(rt *task.Task, ws, out string) run.Talker { return ct.On(rt).User(ws, out, task.WithSandbox(sb)) }}
	if a != nil && a.Bin != "" && a.Turns == nil && a.TurnsFor == nil {
		// a real agent that neither resumes its own way nor speaks the
		// line protocol
		return nil, badInput("--agent %s: swetouch cannot resume its session yet, so it cannot hold a conversation (%s)", a.Name, t.Dir)
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
	c.Flags().StringVar(personas, "personas", "", "a persona transition model (JSON, as user/conversation/personas.json) to draw a multi-turn task's persona chain from, instead of the shipped one")
}

// relayConversation is the user of a multi-turn task for a relay that
// plays it in place (the tests run unsandboxed: the editor started the
// agent, and the session says sandbox none).
func relayConversation(dir string) (func(workspace, out string) run.Talker, error) {
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
	return func(ws, out string) run.Talker { return ct.User(ws, out) }, nil
}

// roleFlags name the models a conversation's user may call besides the
// one that phrases its messages (--user-model-url): the judge and the
// reviewer, meant to be of different model families.
type roleFlags struct {
	judgeURL, judgeModel, reviewURL, reviewModel string
	judgeFamily, reviewFamily                    string
	fixedRoles                                   bool
}

func (r *roleFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&r.judgeURL, "judge-model-url", "", "a multi-turn task's judge: an OpenAI-compatible chat-completions base URL whose model writes each turn's verdict and next focus from the tests (key: $SWETOUCH_JUDGE_API_KEY); the tests stay the primary evidence")
	c.Flags().StringVar(&r.judgeModel, "judge-model", "", "with --judge-model-url: the model's name")
	c.Flags().StringVar(&r.reviewURL, "reviewer-model-url", "", "a multi-turn task's reviewer, of another model family than the judge: it accepts or rewrites the judge's decisions and decides an equivalent pass's behaviour gate (key: $SWETOUCH_REVIEWER_API_KEY)")
	c.Flags().StringVar(&r.reviewModel, "reviewer-model", "", "with --reviewer-model-url: the model's name")
	c.Flags().StringVar(&r.judgeFamily, "judge-family", "", "the judge model's family (anthropic, openai, google, …) where its name does not tell it; a reviewer of the same family is refused (UserSWE U11)")
	c.Flags().StringVar(&r.reviewFamily, "reviewer-family", "", "the reviewer model's family where its name does not tell it")
	c.Flags().BoolVar(&r.fixedRoles, "fixed-roles", false, "keep the judge and the reviewer in their roles on every task (UserSWE swaps them between tasks, by the task's name)")
}

// models are the conversation's models: phrase is the user model
// (--user-model-url), which phrases a conversation's messages too.
func (r *roleFlags) models(phrase user.Writer) (conversation.Models, error) {
	m := conversation.Models{Phrase: phrase}
	var err error
	if m.Judge, err = chatFlag("--judge-model", r.judgeURL, r.judgeModel, "SWETOUCH_JUDGE_API_KEY"); err != nil {
		return m, err
	}
	if m.Review, err = chatFlag("--reviewer-model", r.reviewURL, r.reviewModel, "SWETOUCH_REVIEWER_API_KEY"); err != nil {
		return m, err
	}
	if m.Judge != nil && m.Review == nil {
		return m, badInput("--judge-model-url needs --reviewer-model-url: no judge's decision goes unreviewed")
	}
	if m.Judge != nil {
		if err := conversation.CheckFamilies(r.judgeModel, r.judgeFamily, r.reviewModel, r.reviewFamily); err != nil {
			return m, badInput("--judge-model, --reviewer-model: %v", err)
		}
	}
	m.SwapRoles = !r.fixedRoles
	return m, nil
}

package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/agents/scripted"
	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user/conversation"
)

// demoConversations holds every example conversation with both scripted
// agents (the careful one asks first; the naive one fixes what it guesses
// and follows what the user reports), into the report's conversations/
// folder (writeReport scores them by turn).
func demoConversations(ctx context.Context, cfg Config) error {
	dir := filepath.Join(cfg.Examples, "conversations")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil // an examples folder of the user's, with no conversations
	}
	if err != nil {
		return err
	}
	root := filepath.Join(cfg.Report, "conversations")
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := task.Load(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		ct, err := conversation.LoadTask(t, nil)
		if err != nil {
			return err
		}
		if ct == nil {
			return fmt.Errorf("%s: no %s", t.Dir, conversation.File)
		}
		ct.Models.Phrase = cfg.UserModel // nil: the offline renderer
		for _, agent := range []string{scripted.Naive, scripted.Careful} {
			inv, err := scriptedAgent(cfg, agent, t.Name)
			if err != nil {
				return err
			}
			out := filepath.Join(root, t.Name, agent)
			fmt.Fprintf(cfg.Log, "%-12s %-12s %-8s ", t.Name, "conversation", agent)
			conv := &run.Conversation{Opening: ct.Package.Opening,
				User: func(rt *task.Task, ws, out string) run.Talker {
					return ct.On(rt).User(ws, out, task.WithSandbox(cfg.Sandbox))
				}}
			r, err := run.Trial(ctx, run.Config{
				Task: t, Out: out, Shim: cfg.Shim, Conversation: conv, Agent: inv,
				Sandbox: cfg.Sandbox, Hidden: []string{cfg.Report},
			})
			if err != nil {
				return err
			}
			at := "never"
			if r.Conversation != nil && r.ResolvedTurn != nil {
				at = fmt.Sprintf("at turn %d", *r.ResolvedTurn)
			}
			fmt.Fprintf(cfg.Log, "resolved=%s %s %.1fs\n", result.ShowResolved(r.Resolved), at, r.Timings.Total)
		}
	}
	return nil
}

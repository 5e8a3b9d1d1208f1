package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/session"
)

// hookInput is what Claude Code and Codex hand a PostToolUse hook.
type hookInput struct {
	Cwd      string          `json:"cwd"`
	Tool     string          `json:"tool_name"`
	Input    json.RawMessage `json:"tool_input"`
	Response json.RawMessage `json:"tool_response"`
}

// readHook reads the hook's input and dials the hub; hub is nil outside a
// swetouch run (the hook is then a no-op: it must never fail the agent).
func readHook(c *cobra.Command) (*hookInput, *session.Client, error) {
	sock := os.Getenv("SWETOUCH_SOCKET")
	if sock == "" {
		return nil, nil, nil
	}
	b, err := io.ReadAll(c.InOrStdin())
	if err != nil {
		return nil, nil, err
	}
	var in hookInput
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, nil, badInput("hook input: %v", err)
	}
	hub, err := session.Dial(sock)
	if err != nil {
		return nil, nil, nil
	}
	return &in, hub, nil
}

// hookReply prints messages as PostToolUse additional context, the form
// both agents add to what their model sees next.
func hookReply(c *cobra.Command, msgs []session.Message) {
	if len(msgs) == 0 {
		return
	}
	var sb strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&sb, "<user-message>\n%s\n</user-message>\n", strings.TrimRight(m.Text, "\n"))
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PostToolUse", "additionalContext": sb.String()}})
	fmt.Fprintln(c.OutOrStdout(), string(out))
}

// hookCmd is what an agent's own hook mechanism calls after each tool
// call: it reports the call to the hub and hands back the user's messages
// in the form the agent feeds to its model.
func hookCmd() *cobra.Command {
	c := &cobra.Command{Use: "hook", Short: "Agent hook entry points (called by the agents, not by people)"}
	c.AddCommand(&cobra.Command{
		Use:   "claude",
		Short: "Claude Code PostToolUse hook on native tools: report a Read's lines, take edits now, return messages",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			in, hub, err := readHook(c)
			if hub == nil {
				return err
			}
			defer hub.Close()
			for _, ev := range agents.ClaudeToolEvent(in.Cwd, in.Tool, in.Input) {
				hub.Observe(ev)
			}
			msgs, _ := hub.Sync(hookChannel)
			hookReply(c, msgs)
			return nil
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "codex",
		Short: "Codex PostToolUse hook: report the command (or native edit), return messages as additional context",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			in, hub, err := readHook(c)
			if hub == nil {
				return err
			}
			defer hub.Close()
			var cmd struct {
				Command string `json:"command"`
			}
			json.Unmarshal(in.Input, &cmd)
			var msgs []session.Message
			if cmd.Command != "" && !codexPatch(in.Tool, cmd.Command) {
				id, err := hub.Begin(session.Begin{Command: cmd.Command, Cwd: in.Cwd, Source: "codex"})
				if err != nil {
					return nil
				}
				msgs, _ = hub.End(id, session.End{Output: textOf(in.Response), Channel: hookChannel})
			} else {
				// a native edit (apply_patch's input is a patch, not a
				// command): the watcher has its changes
				msgs, _ = hub.Sync(hookChannel)
			}
			hookReply(c, msgs)
			return nil
		},
	})
	return c
}

// hookChannel is the channel of messages a hook returns: the agent adds
// them to its model's next request as additional context.
const hookChannel = "hook-context"

// codexPatch reports a Codex tool call that is its apply_patch edit tool,
// whose "command" is the patch text.
func codexPatch(tool, command string) bool {
	return tool == "apply_patch" || strings.HasPrefix(strings.TrimSpace(command), "*** Begin Patch")
}

// textOf is a tool response as text: a JSON string, or the raw JSON.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/session"
)

// hookCmd is what an agent's own hook mechanism calls after each tool
// call: it reports the call to the hub and hands back the user's messages
// in the form the agent feeds to its model.
func hookCmd() *cobra.Command {
	c := &cobra.Command{Use: "hook", Short: "Agent hook entry points (called by the agents, not by people)"}
	c.AddCommand(&cobra.Command{
		Use:   "codex",
		Short: "Codex PostToolUse hook: report the command (or native edit), return messages as additional context",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			sock := os.Getenv("SWETOUCH_SOCKET")
			if sock == "" {
				return nil // not in a swetouch run: a no-op
			}
			var in struct {
				Cwd      string          `json:"cwd"`
				Tool     string          `json:"tool_name"`
				Input    json.RawMessage `json:"tool_input"`
				Response json.RawMessage `json:"tool_response"`
			}
			b, err := io.ReadAll(c.InOrStdin())
			if err != nil {
				return err
			}
			if err := json.Unmarshal(b, &in); err != nil {
				return badInput("hook input: %v", err)
			}
			hub, err := session.Dial(sock)
			if err != nil {
				return nil // the run is gone; never fail the agent's tool call
			}
			defer hub.Close()
			var cmd struct {
				Command string `json:"command"`
			}
			json.Unmarshal(in.Input, &cmd)
			var msgs []session.Message
			if cmd.Command != "" {
				id, err := hub.Begin(session.Begin{Command: cmd.Command, Cwd: in.Cwd, Source: "codex"})
				if err != nil {
					return nil
				}
				msgs, _ = hub.End(id, session.End{Output: textOf(in.Response)})
			} else {
				msgs, _ = hub.Sync("tool-output")
			}
			if len(msgs) == 0 {
				return nil
			}
			var sb strings.Builder
			for _, m := range msgs {
				fmt.Fprintf(&sb, "<user-message>\n%s\n</user-message>\n", strings.TrimRight(m.Text, "\n"))
			}
			out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PostToolUse", "additionalContext": sb.String()}})
			fmt.Fprintln(c.OutOrStdout(), string(out))
			return nil
		},
	})
	return c
}

// textOf is a tool response as text: a JSON string, or the raw JSON.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

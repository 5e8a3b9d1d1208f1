package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
)

func agentConfigCmd() *cobra.Command {
	c := &cobra.Command{Use: "agent-config", Short: "Rewrite an agent's configuration to run through swetouch"}
	var agent, file, out string
	mcp := &cobra.Command{
		Use:   "mcp --agent claude|codex|gemini|opencode [--config FILE] [--out FILE]",
		Short: "Put every stdio MCP server of the agent's configuration behind `swetouch mcp`",
		Long: "Rewrites the agent's MCP configuration (by default Claude Code's ./.mcp.json, Codex's\n" +
			"$CODEX_HOME/config.toml, Gemini CLI's ~/.gemini/settings.json, opencode's ./opencode.json)\n" +
			"in place, or to --out. Running it again changes nothing.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if file == "" {
				file = defaultMCPConfig(agent)
			}
			if file == "" {
				return badInput("--agent: want %s, got %q", strings.Join(mcpAgents(), ", "), agent)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return badInput("--config: %v", err)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			got, n, err := agents.WrapMCPConfig(agent, data, exe)
			if err != nil {
				return badInput("%s: %v", file, err)
			}
			if out == "" {
				out = file
			}
			if n > 0 || out != file {
				tmp := out + ".swetouch-tmp"
				if err := os.WriteFile(tmp, got, 0o644); err != nil {
					return err
				}
				if err := os.Rename(tmp, out); err != nil {
					return err
				}
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch: %d MCP server(s) put behind the relay in %s\n", n, out)
			return nil
		},
	}
	mcp.Flags().StringVar(&agent, "agent", "", "an agent that keeps an MCP configuration: "+strings.Join(mcpAgents(), ", "))
	mcp.Flags().StringVar(&file, "config", "", "the configuration file (default: the agent's own)")
	mcp.Flags().StringVar(&out, "out", "", "write here instead of in place")
	mcp.MarkFlagRequired("agent")
	c.AddCommand(mcp)
	return c
}

// defaultMCPConfig is where the agent keeps its MCP servers ("": it
// keeps none of its own, or is not known).
func defaultMCPConfig(agent string) string {
	a, err := agents.Lookup(agent)
	if err != nil || a.MCPConfig == nil {
		return ""
	}
	home, _ := os.UserHomeDir()
	return a.MCPConfig.Path(home, os.Getenv)
}

// mcpAgents are the registered agents with an MCP configuration of their
// own.
func mcpAgents() []string {
	var out []string
	for _, n := range agents.Names() {
		if a, _ := agents.Lookup(n); a.MCPConfig != nil {
			out = append(out, n)
		}
	}
	return out
}

package main

import (
	"fmt"
	"os"
	"path/filepath"

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
				return badInput("--agent: want claude, codex, gemini or opencode, got %q", agent)
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
	mcp.Flags().StringVar(&agent, "agent", "", "claude, codex, gemini or opencode")
	mcp.Flags().StringVar(&file, "config", "", "the configuration file (default: the agent's own)")
	mcp.Flags().StringVar(&out, "out", "", "write here instead of in place")
	mcp.MarkFlagRequired("agent")
	c.AddCommand(mcp)
	return c
}

func defaultMCPConfig(agent string) string {
	home, _ := os.UserHomeDir()
	switch agent {
	case "claude":
		return ".mcp.json"
	case "opencode":
		return "opencode.json"
	case "gemini":
		return filepath.Join(home, ".gemini", "settings.json")
	case "codex":
		if d := os.Getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "config.toml")
		}
		return filepath.Join(home, ".codex", "config.toml")
	}
	return ""
}

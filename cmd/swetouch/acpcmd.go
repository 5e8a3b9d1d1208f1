package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	acpproxy "github.com/swetouch/swetouch/proxy/acp"
	"github.com/swetouch/swetouch/session"
)

func acpCmd() *cobra.Command {
	var sock, root, traffic string
	var noWrap bool
	c := &cobra.Command{
		Use:   "acp [--session SOCKET] [--root DIR] [--traffic FILE] -- AGENT ARGS...",
		Short: "Run an ACP agent behind a transparent relay: name it as the agent command in the editor",
		Long: "Every message passes both ways as it came. Reads (fs/read_text_file, read tool calls) and\n" +
			"writes (fs/write_text_file, edit tool calls) are reported to the session with their lines,\n" +
			"terminals as commands; the user's messages reach the agent as _session/steering when it\n" +
			"takes it, else as a user turn after the current one (the editor's next prompt waits), and\n" +
			"the editor is shown them as user messages. Stdio MCP servers of session/new and\n" +
			"session/load run through `swetouch mcp`. --traffic writes every message to FILE (JSONL).\n" +
			"Without a session (no --session and no SWETOUCH_SOCKET) it relays and records only.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if sock == "" {
				sock = os.Getenv("SWETOUCH_SOCKET")
			}
			if root == "" {
				root, _ = os.Getwd()
			}
			opts := []acpproxy.Option{acpproxy.WithRoot(root)}
			if sock != "" {
				h, err := session.Dial(sock)
				if err != nil {
					fmt.Fprintf(c.ErrOrStderr(), "swetouch acp: no session at %s (%v); relaying only\n", sock, err)
				} else {
					defer h.Close()
					opts = append(opts, acpproxy.WithHub(h))
					if exe, err := os.Executable(); err == nil && !noWrap {
						opts = append(opts, acpproxy.WithMCPWrapper(acpproxy.WrapMCP(exe, sock, root)))
					}
				}
			}
			if traffic != "" {
				f, err := os.Create(traffic)
				if err != nil {
					return badInput("--traffic: %v", err)
				}
				defer f.Close()
				opts = append(opts, acpproxy.WithTraffic(f))
			}
			code, err := acpproxy.Run(args, c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr(), opts...)
			if err != nil {
				return err
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	c.Flags().StringVar(&sock, "session", "", "the hub's socket (default: $SWETOUCH_SOCKET)")
	c.Flags().StringVar(&root, "root", "", "the workspace (default: the current directory)")
	c.Flags().StringVar(&traffic, "traffic", "", "write every ACP message, both ways, to this JSONL file")
	c.Flags().BoolVar(&noWrap, "no-mcp-wrap", false, "leave session/new's MCP servers as they are")
	return c
}

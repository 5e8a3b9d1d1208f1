package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
	"github.com/swetouch/swetouch/session"
)

func mcpCmd() *cobra.Command {
	var sock, mapping, root string
	c := &cobra.Command{
		Use:   "mcp [--session SOCKET] [--mapping FILE] [--root DIR] -- SERVER ARGS...",
		Short: "Run a stdio MCP server behind a transparent relay that reports its tool calls to the session",
		Long: "A drop-in replacement for a stdio MCP server entry in an agent's configuration: put\n" +
			"`swetouch mcp --` in front of the server's command. Every message passes unchanged except\n" +
			"the result of a tools/call that brings a user message, which gains one text block.\n" +
			"Without a session (no --session and no SWETOUCH_SOCKET) it only relays.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if sock == "" {
				sock = os.Getenv("SWETOUCH_SOCKET")
			}
			cl := &mcpproxy.Classifier{Root: root}
			if cl.Root == "" {
				cl.Root, _ = os.Getwd()
			}
			if mapping != "" {
				m, err := mcpproxy.LoadMapping(mapping)
				if err != nil {
					return badInput("--mapping: %v", err)
				}
				cl.Mapping = m
			}
			var hub mcpproxy.Hub
			if sock != "" {
				h, err := session.Dial(sock)
				if err != nil {
					fmt.Fprintf(c.ErrOrStderr(), "swetouch mcp: no session at %s (%v); relaying only\n", sock, err)
				} else {
					defer h.Close()
					hub = h
				}
			}
			code, err := mcpproxy.RunStdio(args, mcpproxy.NewRelay(hub, cl, c.ErrOrStderr()), c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr())
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
	c.Flags().StringVar(&mapping, "mapping", "", "a JSON file classifying this server's tools")
	c.Flags().StringVar(&root, "root", "", "the workspace the server's paths are in (default: the current directory)")
	return c
}

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
	"github.com/swetouch/swetouch/session"
)

func mcpCmd() *cobra.Command {
	var sock, mapping, root, listen, upstream string
	c := &cobra.Command{
		Use:   "mcp [--session SOCKET] [--mapping FILE] [--root DIR] (-- SERVER ARGS... | --upstream URL [--listen 127.0.0.1:0])",
		Short: "Run a stdio MCP server behind a transparent relay that reports its tool calls to the session",
		Long: "A drop-in replacement for a stdio MCP server entry in an agent's configuration: put\n" +
			"`swetouch mcp --` in front of the server's command. Every message passes unchanged except\n" +
			"the result of a tools/call that brings a user message, which gains one text block.\n" +
			"Without a session (no --session and no SWETOUCH_SOCKET) it only relays.",
		RunE: func(c *cobra.Command, args []string) error {
			if (upstream == "") == (len(args) == 0) {
				return badInput("give either the stdio server's command after --, or --upstream URL")
			}
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
			relay := mcpproxy.NewRelay(hub, cl, c.ErrOrStderr())
			if upstream != "" {
				u, err := url.Parse(upstream)
				if err != nil || u.Host == "" {
					return badInput("--upstream: want a URL, got %q", upstream)
				}
				l, err := net.Listen("tcp", listen)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "http://%s\n", l.Addr())
				srv := &http.Server{Handler: mcpproxy.NewHTTPRelay(u, relay)}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
				if err := srv.Serve(l); err != http.ErrServerClosed {
					return err
				}
				return nil
			}
			code, err := mcpproxy.RunStdio(args, relay, c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr())
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
	c.Flags().StringVar(&upstream, "upstream", "", "relay to this streamable HTTP MCP server instead of a stdio one")
	c.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "with --upstream: the address to serve on")
	return c
}

package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
	"github.com/swetouch/swetouch/session"
)

func mcpCmd() *cobra.Command {
	var sock, mapping, root, listen, upstream string
	var ip inPlace
	c := &cobra.Command{
		Use:   "mcp [--session SOCKET | --records FILE [--instance ID] [--condition C] [--match M] --out DIR] [--mapping FILE] [--root DIR] (-- SERVER ARGS... | --upstream URL [--listen 127.0.0.1:0])",
		Short: "Run a stdio MCP server behind a transparent relay that reports its tool calls to the session",
		Long: "A drop-in replacement for a stdio MCP server entry in an agent's configuration: put\n" +
			"`swetouch mcp --` in front of the server's command. Every message passes unchanged except\n" +
			"the result of a tools/call that brings a user message, which gains one text block.\n" +
			"With --records (or --out alone) it runs a session of its own over --root, in place, and writes\n" +
			"trajectory.jsonl and session.json to --out. Without any session it only relays.",
		RunE: func(c *cobra.Command, args []string) error {
			if (upstream == "") == (len(args) == 0) {
				return badInput("give either the stdio server's command after --, or --upstream URL")
			}
			if root == "" {
				root, _ = os.Getwd()
			}
			root, _ = filepath.Abs(root)
			cl := &mcpproxy.Classifier{Root: root}
			if mapping != "" {
				m, err := mcpproxy.LoadMapping(mapping)
				if err != nil {
					return badInput("--mapping: %v", err)
				}
				cl.Mapping = m
			}
			var own *inPlaceSession
			note, exit := "done", 0
			if ip.wanted() {
				var err error
				if own, err = ip.start(sock, root, "swetouch mcp", args); err != nil {
					return err
				}
				sock = own.Socket
				defer func() { own.finish(exit, note) }()
			} else if sock == "" {
				sock = os.Getenv("SWETOUCH_SOCKET")
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
				if err != nil || u.Host == "" || u.Scheme != "http" {
					return badInput("--upstream: want an http:// URL (a local MCP server), got %q", upstream)
				}
				l, err := net.Listen("tcp", listen)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "http://%s\n", l.Addr())
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				go func() { <-ctx.Done(); l.Close() }()
				return mcpproxy.NewHTTPRelay(u, relay).Serve(l)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			server := exec.CommandContext(ctx, args[0], args[1:]...)
			server.Cancel = func() error { return server.Process.Signal(syscall.SIGTERM) }
			server.WaitDelay = 10 * time.Second
			server.Stderr = c.ErrOrStderr()
			code, err := mcpproxy.RunStdio(server, relay, c.InOrStdin(), c.OutOrStdout())
			exit = code
			if own != nil && ctx.Err() != nil {
				note = "interrupted"
			}
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
	ip.flags(c.Flags())
	c.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "with --upstream: the address to serve on")
	return c
}

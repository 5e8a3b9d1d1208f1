package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
)

func mcpCmd() *cobra.Command {
	var sock, mapping, root, listenAddr, upstream string
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
			root = workspaceRoot(root)
			cl := &mcpproxy.Classifier{Root: root}
			if mapping != "" {
				m, err := mcpproxy.LoadMapping(mapping)
				if err != nil {
					return badInput("--mapping: %v", err)
				}
				cl.Mapping = m
			}
			sock, own, err := ip.socket(sock, root, "swetouch mcp", args)
			if err != nil {
				return err
			}
			if own == nil && os.Getenv("GOMAXPROCS") == "" {
				// a relay only waits and copies: with one P its goroutines
				// hand each message on without waking a second thread
				// (a tenth of its added time and CPU per call here)
				runtime.GOMAXPROCS(1)
			}
			// SIGINT or SIGTERM ends the relay (and reaches a stdio server)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			hub := dialHub("mcp", sock, c.ErrOrStderr())
			var relayHub mcpproxy.Hub // a nil client is no hub at all
			if hub != nil {
				relayHub = hub
			}
			relay := mcpproxy.NewRelay(relayHub, cl, c.ErrOrStderr())
			if upstream != "" {
				u, err := url.Parse(upstream)
				if err != nil || u.Host == "" || u.Scheme != "http" {
					return badInput("--upstream: want an http:// URL (a local MCP server), got %q", upstream)
				}
				l, err := listen(listenAddr)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "http://%s\n", l.Addr())
				go func() { <-ctx.Done(); l.Close() }()
				// a signal is how an HTTP relay is meant to stop: done
				return end(context.Background(), "server", own, hub, 0, mcpproxy.NewHTTPRelay(u, relay).Serve(l))
			}
			// a servers file names the workspace before it exists
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "{workspace}", root)
			}
			code, err := mcpproxy.RunStdio(peerCommand(ctx, args, c.ErrOrStderr()), relay, c.InOrStdin(), c.OutOrStdout())
			return end(ctx, "server", own, hub, code, err)
		},
	}
	c.Flags().StringVar(&sock, "session", "", "the hub's socket (default: $SWETOUCH_SOCKET)")
	c.Flags().StringVar(&mapping, "mapping", "", "a JSON file classifying this server's tools")
	c.Flags().StringVar(&root, "root", "", "the workspace the server's paths are in (default: the current directory)")
	c.Flags().StringVar(&upstream, "upstream", "", "relay to this streamable HTTP MCP server instead of a stdio one")
	ip.flags(c.Flags())
	c.Flags().StringVar(&listenAddr, "listen", "127.0.0.1:0", "with --upstream: the address to serve on")
	return c
}

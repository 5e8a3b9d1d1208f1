package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/swetouch/swetouch/agents"
)

// helperPeer: COMMAND ARGS...: an MCP proxy over stdio built as Go's
// MCP proxies are (TBXark/mcp-proxy's shape, on mcp-go): mcp-go's client
// to the server it starts, mcp-go's server to its own client, each tool
// of the server's tools/list served by forwarding the call. It is the
// peer that runs here: the Rust proxy the issue names is measured on
// another machine, and nothing here can build it.
const helperPeer = "-mcp-go-proxy"

// peerProxy runs helperPeer until its client goes.
func peerProxy(command []string) {
	// it runs as a peer would, with every P: with one P, as the relay
	// runs, it added 550 µs to the short call here against 389 with two
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "mcp-go proxy:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	up, err := client.NewStdioMCPClient(command[0], os.Environ(), command[1:]...)
	if err != nil {
		fail(err)
	}
	defer up.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-proxy", Version: "1"}
	info, err := up.Initialize(ctx, init)
	if err != nil {
		fail(err)
	}
	tools, err := up.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		fail(err)
	}
	s := server.NewMCPServer(info.ServerInfo.Name, info.ServerInfo.Version, server.WithToolCapabilities(false))
	for _, t := range tools.Tools {
		s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return up.CallTool(ctx, req)
		})
	}
	if err := server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout); err != nil && err != context.Canceled {
		fail(err)
	}
}

// peerPart times the stdio calls of stdioPart and readPart (the short
// call and the 16 KiB read) through the relay with the live hub, the
// pipe copy and the mcp-go proxy, in turns: where the relay stands
// among the MCP proxies that run here. The figures are for reference:
// the targets are set against the floors, not against a peer.
func peerPart(res *results, n int, bin, ws string, live *helperProc) error {
	fs, err := agents.FindAgent("mcp-server-filesystem")
	if err != nil {
		fmt.Println("MCP peer: skipped (", err, ")")
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	relayed := []string{filepath.Join(bin, "swetouch"), "mcp", "--root", ws, "--session", live.sock, "--", fs, ws}
	read, err := readRequest(ws)
	if err != nil {
		return err
	}
	if err := peerReads(ws, read, []string{self, helperPeer, fs, ws}); err != nil {
		return err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	for _, c := range []struct {
		name string
		req  mcp.CallToolRequest
	}{{"list_allowed_directories", listDirs()}, {"read_text_file, 16 KiB", read}} {
		t, cpu, _, err := mcpTimes(n, ws, c.req, []int{live.pid}, []string{fs, ws}, relayed,
			[]string{self, helperPipe, fs, ws}, []string{self, helperPeer, fs, ws})
		if err != nil {
			return err
		}
		withHub, floor, peer := us(t[1]), us(t[2]), us(t[3])
		res.say("MCP peer, %s  median %.0f µs direct; added: the relay with a live hub %.0f µs, the mcp-go proxy %.0f µs, the pipe copy %.0f µs, paired over %d calls", c.name, us(t[0]), withHub, peer, floor, n)
		res.say("  CPU per call: the relay %.0f µs and its hub %.0f; the mcp-go proxy %.0f; the pipe copy %.0f", cpu[1], cpu[4], cpu[3], cpu[2])
		res.target(figure{Target: "MCP stdio " + c.name + " added, relay+hub / mcp-go proxy", Value: withHub / peer, Unit: "×", Floor: floor / peer, FloorIs: "the pipe copy", Runs: n, Info: true})
	}
	return nil
}

// peerReads checks that the peer answers the read with the file's text:
// a peer answering with an error would be timed as a quick one.
func peerReads(ws string, read mcp.CallToolRequest, peer []string) error {
	c, err := client.NewStdioMCPClient(peer[0], os.Environ(), peer[1:]...)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := initialize(c, mcp.LATEST_PROTOCOL_VERSION); err != nil {
		return err
	}
	got, err := c.CallTool(context.Background(), read)
	if err != nil {
		return fmt.Errorf("the mcp-go proxy: %w", err)
	}
	want, err := os.ReadFile(filepath.Join(ws, "bench-read.py"))
	if err != nil {
		return err
	}
	if text, ok := firstText(got); got.IsError || !ok || text != string(want) {
		return fmt.Errorf("the mcp-go proxy answered the read with something else than the file (error %v, %d bytes of text)", got.IsError, len(text))
	}
	return nil
}

// firstText is a result's first text block.
func firstText(r *mcp.CallToolResult) (string, bool) {
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "", false
}

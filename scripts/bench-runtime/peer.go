package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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

// helperPeerHTTP: URL: the same over MCP's streamable HTTP, to the
// server at URL (mcp-go's HTTP client there, its HTTP server here).
const helperPeerHTTP = "-mcp-go-proxy-http"

// peerProxy runs helperPeer until its client goes.
func peerProxy(command []string) {
	// it runs as a peer would, with every P (with one, as the relay
	// runs, it added 9.2× the pipe copy's time to the short call here,
	// with two 8.5×)
	ctx := context.Background()
	up, err := client.NewStdioMCPClient(command[0], os.Environ(), command[1:]...)
	if err != nil {
		peerFails(err)
	}
	defer up.Close()
	if err := server.NewStdioServer(forwarding(ctx, up)).Listen(ctx, os.Stdin, os.Stdout); err != nil && err != context.Canceled {
		peerFails(err)
	}
}

// peerHTTPHandler is helperPeerHTTP's handler, its client to base's /mcp.
func peerHTTPHandler(base string) http.Handler {
	ctx := context.Background()
	up, err := client.NewStreamableHttpClient(base + "/mcp")
	if err != nil {
		peerFails(err)
	}
	if err := up.Start(ctx); err != nil {
		peerFails(err)
	}
	return server.NewStreamableHTTPServer(forwarding(ctx, up))
}

// forwarding opens an MCP session on up and is a server offering each
// of up's tools by calling it there, as a proxy built from mcp-go does.
func forwarding(ctx context.Context, up *client.Client) *server.MCPServer {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-proxy", Version: "1"}
	info, err := up.Initialize(ctx, init)
	if err != nil {
		peerFails(err)
	}
	tools, err := up.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		peerFails(err)
	}
	s := server.NewMCPServer(info.ServerInfo.Name, info.ServerInfo.Version, server.WithToolCapabilities(false))
	for _, t := range tools.Tools {
		s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return up.CallTool(ctx, req)
		})
	}
	return s
}

// peerFails ends a peer's process, saying why.
func peerFails(err error) {
	fmt.Fprintln(os.Stderr, "mcp-go proxy:", err)
	os.Exit(1)
}

// The calls peerPart makes, and its targets (named once: a skipped part
// lists them as not measured).
const (
	peerCallDirs   = "list_allowed_directories"
	peerCallRead   = "read_text_file, 16 KiB"
	targetPeerHTTP = "MCP HTTP ping_tool added, relay+hub / mcp-go proxy"
)

// peerTarget is the target of the peer part's stdio call named call.
func peerTarget(call string) string { return "MCP stdio " + call + " added, relay+hub / mcp-go proxy" }

// peerPart times the stdio calls of stdioPart and readPart (the short
// call and the 16 KiB read) through the relay with the live hub, the
// pipe copy and the mcp-go proxy, in turns: where the relay stands
// among the MCP proxies that run here. The figures are for reference:
// the targets are set against the floors, not against a peer.
func peerPart(res *results, n int, bin, ws string, live *helperProc) error {
	fs, err := agents.FindAgent("mcp-server-filesystem")
	if err != nil {
		res.say("MCP peer: not measured (%v)", err)
		res.notMeasured(err.Error(), peerTarget(peerCallDirs), peerTarget(peerCallRead), targetPeerHTTP)
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	relayed, peer := stdioRelay(bin, ws, live.sock, fs), []string{self, helperPeer, fs, ws}
	read, err := readRequest(ws)
	if err != nil {
		return err
	}
	if err := peerReads(ws, read, peer); err != nil {
		return err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	for _, c := range []struct {
		name string
		req  mcp.CallToolRequest
	}{{peerCallDirs, listDirs()}, {peerCallRead, read}} {
		t, cpu, _, err := mcpTimes(n, ws, c.req, []int{live.pid}, []string{fs, ws}, relayed,
			[]string{self, helperPipe, fs, ws}, peer)
		if err != nil {
			return err
		}
		withHub, floor, byPeer := us(t[1]), us(t[2]), us(t[3])
		res.say("MCP peer, %s  median %.0f µs direct; added: the relay with a live hub %.0f µs, the mcp-go proxy %.0f µs, the pipe copy %.0f µs, paired over %d calls", c.name, us(t[0]), withHub, byPeer, floor, n)
		res.say("  CPU per call: the relay %.0f µs and its hub %.0f; the mcp-go proxy %.0f; the pipe copy %.0f", cpu[1], cpu[4], cpu[3], cpu[2])
		res.target(figure{Target: peerTarget(c.name), Value: withHub / byPeer, Unit: "×", Floor: floor / byPeer, FloorIs: "the pipe copy", Runs: n, Info: true})
	}
	return peerHTTPPart(res, n, self, filepath.Join(bin, "swetouch"), ws, live)
}

// peerHTTPPart is peerPart's short call over HTTP (mcp-go's server with
// its one tool, as httpPart calls it): the relay with the live hub, the
// plain TCP proxy and the mcp-go proxy, in turns.
func peerHTTPPart(res *results, n int, self, swetouch, ws string, live *helperProc) error {
	ps := urlProcs{pids: map[string]int{}}
	defer ps.stop()
	up, err := ps.start(self, helperServe)
	if err != nil {
		return err
	}
	u, _ := url.Parse(up)
	relayed, err := ps.start(swetouch, "mcp", "--root", ws, "--upstream", up, "--session", live.sock)
	if err != nil {
		return err
	}
	floor, err := ps.start(self, helperProxy, u.Host)
	if err != nil {
		return err
	}
	peer, err := ps.start(self, helperPeerHTTP, up)
	if err != nil {
		return err
	}
	clients, err := httpClients(up, relayed, floor, peer)
	defer closeAll(clients)
	if err != nil {
		return err
	}
	req := pingCall()
	if got, err := clients[3].CallTool(context.Background(), req); err != nil || got.IsError {
		return fmt.Errorf("the mcp-go HTTP proxy did not answer ping_tool (%v)", err)
	} else if text, _ := firstText(got); text != "pong" {
		return fmt.Errorf("the mcp-go HTTP proxy answered ping_tool with %q", text)
	}
	var m cpuMeter
	m.start(ps.pids[relayed], live.pid, ps.pids[floor], ps.pids[peer])
	t, err := alternate(n, req, clients...)
	if err != nil {
		return err
	}
	cpu := m.perCall(n)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	withHub, tcp, byPeer := us(t[1]), us(t[2]), us(t[3])
	res.say("MCP peer, HTTP ping_tool  median %.0f µs direct; added: the relay with a live hub %.0f µs, the mcp-go proxy %.0f µs, the TCP proxy %.0f µs, paired over %d calls", us(t[0]), withHub, byPeer, tcp, n)
	res.say("  CPU per call: the relay %.0f µs and its hub %.0f; the mcp-go proxy %.0f; the TCP proxy %.0f", cpu[0], cpu[1], cpu[3], cpu[2])
	res.target(figure{Target: targetPeerHTTP, Value: withHub / byPeer, Unit: "×", Floor: tcp / byPeer, FloorIs: "the TCP proxy", Runs: n, Info: true})
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
	want, err := os.ReadFile(filepath.Join(ws, readFile))
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

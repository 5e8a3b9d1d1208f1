package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/swetouch/swetouch/policy"
	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
	"github.com/swetouch/swetouch/session"
)

// fileServer is an mcp-go streamable HTTP server with a read_text_file
// tool over root, as the reference filesystem server has.
func fileServer(t *testing.T, root string) *httptest.Server {
	s := server.NewMCPServer("files", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("read_text_file", mcp.WithString("path"), mcp.WithNumber("head")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p, _ := req.GetArguments()["path"].(string)
			b, err := os.ReadFile(p)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			lines := strings.SplitAfter(string(b), "\n")
			if h, ok := req.GetArguments()["head"].(float64); ok && int(h) < len(lines) {
				lines = lines[:int(h)]
			}
			return mcp.NewToolResultText(strings.Join(lines, "")), nil
		})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	return ts
}

func relayFor(t testing.TB, upstream string, sock string, ws string) *httptest.Server {
	u, _ := url.Parse(upstream)
	var hub mcpproxy.Hub
	if sock != "" {
		c, err := session.Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		hub = c
	}
	rs := httptest.NewServer(mcpproxy.NewHTTPRelay(u, mcpproxy.NewRelay(hub, &mcpproxy.Classifier{Root: ws}, os.Stderr)))
	t.Cleanup(rs.Close)
	return rs
}

func httpClient(t testing.TB, base string) *client.Client {
	c, err := client.NewStreamableHttpClient(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "swetouch-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestHTTPCounterEdit: over streamable HTTP, a read that covers the region
// fires the Counter-Edit and the message is the result's own text block.
func TestHTTPCounterEdit(t *testing.T) {
	ws, sock, _ := hubFor(t, policy.CounterEdit)
	up := fileServer(t, ws)
	c := httpClient(t, relayFor(t, up.URL, sock, ws).URL)
	res := callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(ws, "pricing.py"), "head": 6})
	ts := texts(res)
	if len(ts) != 2 || !strings.Contains(ts[0], "def apply_discount") || !strings.Contains(ts[1], "clamped") {
		t.Fatalf("want the file's text, then the message block: %q", ts)
	}
}

// TestHTTPConcurrent: 1,000 concurrent tools/call through the relay are
// all answered, each with its own result.
func TestHTTPConcurrent(t *testing.T) {
	ws, sock, _ := hubFor(t, policy.Vanilla)
	for i := 0; i < 10; i++ {
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
	}
	c := httpClient(t, relayFor(t, fileServer(t, ws).URL, sock, ws).URL)
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req := mcp.CallToolRequest{}
			req.Params.Name = "read_text_file"
			req.Params.Arguments = map[string]any{"path": filepath.Join(ws, fmt.Sprintf("f%d.txt", i%10))}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := c.CallTool(ctx, req)
			if err != nil {
				errs <- err
				return
			}
			if got := texts(res); len(got) != 1 || got[0] != fmt.Sprintf("file %d\n", i%10) {
				errs <- fmt.Errorf("call %d: %q", i, got)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 3 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of 1000 calls failed", n)
	}
}

// TestHTTPOrigin: a browser page from elsewhere is refused (DNS
// rebinding); localhost origins and clients without one pass.
func TestHTTPOrigin(t *testing.T) {
	ws, _, _ := hubFor(t, policy.Vanilla)
	rs := relayFor(t, fileServer(t, ws).URL, "", ws)
	for origin, want := range map[string]int{"http://evil.example": http.StatusForbidden, "http://localhost:3000": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodPost, rs.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Origin", origin)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("origin %s: %d, want %d", origin, resp.StatusCode, want)
		}
	}
}

// TestHTTPListChanged: a notification the server sends on its own — here
// tools/list_changed when a tool is added — reaches the client through the
// relay's GET stream.
func TestHTTPListChanged(t *testing.T) {
	ws, sock, _ := hubFor(t, policy.Vanilla)
	s := server.NewMCPServer("files", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("one"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("1"), nil
	})
	up := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer up.Close()
	rs := relayFor(t, up.URL, sock, ws)
	c, err := client.NewStreamableHttpClient(rs.URL+"/mcp", transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan string, 4)
	c.OnNotification(func(n mcp.JSONRPCNotification) { got <- n.Method })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	callTool(t, c, "one", nil) // the session is live both ways
	s.AddTool(mcp.NewTool("two"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("2"), nil
	})
	select {
	case m := <-got:
		if m != "notifications/tools/list_changed" {
			t.Errorf("got %s", m)
		}
	case <-ctx.Done():
		t.Fatal("no list_changed notification through the relay")
	}
}

// BenchmarkHTTPCall times a tools/call to an mcp-go streamable HTTP
// server directly, through the HTTP relay alone, and through the relay
// with a live hub under vanilla; the differences of ns/op are what the
// relay adds (budget 100 µs). scripts/bench-runtime reports the same as
// a ratio in one run.
func BenchmarkHTTPCall(b *testing.B) {
	srv := server.NewMCPServer("bench", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("ping_tool"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	up := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	defer up.Close()
	ws, sock, _ := hubFor(b, policy.Vanilla)
	for _, c := range []struct {
		name string
		base func() string
	}{
		{"direct", func() string { return up.URL }},
		{"relay", func() string { return relayFor(b, up.URL, "", ws).URL }},
		{"relay+hub", func() string { return relayFor(b, up.URL, sock, ws).URL }},
	} {
		b.Run(c.name, func(b *testing.B) {
			cl := httpClient(b, c.base())
			req := mcp.CallToolRequest{}
			req.Params.Name = "ping_tool"
			b.ResetTimer()
			for range b.N {
				if _, err := cl.CallTool(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

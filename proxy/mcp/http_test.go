package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport/rawhttp"
	"github.com/swetouch/swetouch/policy"
	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
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

func relayFor(t testing.TB, upstream string, sock string, ws string) *relayServer {
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go mcpproxy.NewHTTPRelay(u, mcpproxy.NewRelay(hub, &mcpproxy.Classifier{Root: ws}, os.Stderr)).Serve(l)
	t.Cleanup(func() { l.Close() })
	return &relayServer{URL: "http://" + l.Addr().String()}
}

// relayServer is where a relay listens.
type relayServer struct{ URL string }

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
	// not httpClient: the GET stream lives on Start's context, which must
	// last the whole test
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

// BenchmarkHTTPExchange is the relay's own cost of one tools/call over
// HTTP, with no MCP library on either side: a client that writes the
// request mcp-go's client writes and a server that answers it with a
// fixed result (internal/rawhttp), one keep-alive connection, through
// the relay alone and with a live hub under vanilla. Its allocations are the
// relay's, less the little the two ends make; on the project's machines a
// call's fresh memory is paid for in cache misses, every call.
func BenchmarkHTTPExchange(b *testing.B) {
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping_tool"}}`
	const result = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"pong"}]}}`
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go rawhttp.Serve(l, rawhttp.Response(result))
	up := "http://" + l.Addr().String()
	ws, sock, _ := hubFor(b, policy.Vanilla)
	request := []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: %d\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: mcp-session-9c3b02f2-50d8-4bd3-ace5-f9aea7ba3265\r\nAccept-Encoding: gzip\r\n\r\n%s", len(call), call))
	for _, c := range []struct{ name, sock string }{{"relay", ""}, {"relay+hub", sock}} {
		b.Run(c.name, func(b *testing.B) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(relayFor(b, up, c.sock, ws).URL, "http://"))
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conn.Write(request); err != nil {
					b.Fatal(err)
				}
				n, err := rawhttp.Length(br)
				if err == nil {
					_, err = br.Discard(int(n))
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHTTPFraming: through the byte relay, every way HTTP/1.1 frames a
// message reaches the other side as it does directly: a JSON body by
// length and chunked, an event stream flushed event by event, HEAD, 204
// and 304 (no body), a chunked request body, and Expect: 100-continue.
func TestHTTPFraming(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/len", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", r.Header.Get("X-Echo"))
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"pad":%q}}`, strings.Repeat("x", 100<<10))
	})
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"i\":%d}}\n\n", i)
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %d %q", r.Method, len(b), b[:min(len(b), 20)])
	})
	mux.HandleFunc("/204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/304", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) })
	up := httptest.NewServer(mux)
	defer up.Close()
	ws, _, _ := hubFor(t, policy.Vanilla)
	rs := relayFor(t, up.URL, "", ws)

	type result struct {
		status int
		ctype  string
		echo   string
		body   string
	}
	do := func(base string, method, path string, body io.Reader, hdr map[string]string) result {
		req, _ := http.NewRequest(method, base+path, body)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s via %s: %v", method, path, base, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return result{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("X-Echo"), string(b)}
	}
	big := strings.Repeat("y", 70<<10)
	for _, c := range []struct {
		method, path string
		body         func() io.Reader
		hdr          map[string]string
	}{
		{"GET", "/len", nil, map[string]string{"X-Echo": "kept"}},
		{"HEAD", "/len", nil, nil},
		{"GET", "/big", nil, nil},
		{"GET", "/sse", nil, nil},
		{"GET", "/204", nil, nil},
		{"GET", "/304", nil, nil},
		{"POST", "/echo", func() io.Reader { return strings.NewReader(big) }, nil},
		// a reader of unknown length: the client sends it chunked
		{"POST", "/echo", func() io.Reader { return io.MultiReader(strings.NewReader(big), strings.NewReader("z")) }, nil},
		{"POST", "/echo", func() io.Reader { return strings.NewReader(big) }, map[string]string{"Expect": "100-continue"}},
		{"GET", "/len", nil, nil}, // the connection is still good
	} {
		var b1, b2 io.Reader
		if c.body != nil {
			b1, b2 = c.body(), c.body()
		}
		direct, relayed := do(up.URL, c.method, c.path, b1, c.hdr), do(rs.URL, c.method, c.path, b2, c.hdr)
		if direct != relayed {
			t.Errorf("%s %s:\ndirect  %+v\nrelayed %+v", c.method, c.path, clip(direct), clip(relayed))
		}
	}
}

func clip[T any](v T) string {
	s := fmt.Sprintf("%+v", v)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// TestHTTPGarbage: a connection that sends garbage gets the server's own
// answer to it and is closed; the relay and its other sessions go on.
func TestHTTPGarbage(t *testing.T) {
	ws, sock, _ := hubFor(t, policy.Vanilla)
	up := fileServer(t, ws)
	rs := relayFor(t, up.URL, sock, ws)
	c := httpClient(t, rs.URL)
	conn, err := net.Dial("tcp", strings.TrimPrefix(rs.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, "\x00\x01 not http at all\r\nbut: two lines\r\n\r\n")
	answer, _ := io.ReadAll(conn) // to the close
	conn.Close()
	if !strings.HasPrefix(string(answer), "HTTP/1.1 400") {
		t.Errorf("garbage got %q", answer)
	}
	if ts := texts(callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(ws, "pricing.py")})); len(ts) != 1 {
		t.Errorf("the session after garbage: %q", ts)
	}
}

// TestHTTPCommand: `swetouch mcp --upstream URL` prints where it listens,
// relays there with the hub's Counter-Edit, and ends on SIGTERM.
func TestHTTPCommand(t *testing.T) {
	ws, sock, _ := hubFor(t, policy.CounterEdit)
	up := fileServer(t, ws)
	cmd := exec.Command(filepath.Join(binDir, "swetouch"), "mcp", "--session", sock, "--root", ws, "--upstream", up.URL)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	c := httpClient(t, strings.TrimSpace(line))
	ts := texts(callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(ws, "pricing.py"), "head": 6}))
	if len(ts) != 2 || !strings.Contains(ts[1], "clamped") {
		t.Errorf("want the file's text, then the message block: %q", ts)
	}
	c.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("swetouch mcp --upstream ended with %v", err)
	}
}

// gatedHub holds each begin until the test lets it through.
type gatedHub struct {
	*session.Client
	entered, release chan struct{}
}

func (g gatedHub) BeginArmed(b session.Begin) (int, bool, error) {
	g.entered <- struct{}{}
	<-g.release
	return g.Client.BeginArmed(b)
}

// TestCallHeldWhileArmed: while an intervention can still fire, a
// tools/call waits for the hub to take its begin before the server sees
// it, so a file the server writes is the call's edit (which the policy
// may act on), never an edit before it.
func TestCallHeldWhileArmed(t *testing.T) {
	var traj bytes.Buffer
	rec, _ := trajectory.NewWriter(&traj, trajectory.Header{})
	ws, sock, _ := sessiontest.Serve(t, "../../examples/tasks/py-discount", policy.CounterEdit, sessiontest.Watched(), sessiontest.Recorded(rec))
	s := server.NewMCPServer("files", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("write_file", mcp.WithString("path"), mcp.WithString("content")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p, _ := req.GetArguments()["path"].(string)
			content, _ := req.GetArguments()["content"].(string)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText("written"), nil
		})
	up := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer up.Close()
	cl, err := session.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	hub := gatedHub{cl, make(chan struct{}), make(chan struct{})}
	u, _ := url.Parse(up.URL)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go mcpproxy.NewHTTPRelay(u, mcpproxy.NewRelay(hub, &mcpproxy.Classifier{Root: ws}, io.Discard)).Serve(l)
	c := httpClient(t, "http://"+l.Addr().String())
	notes := filepath.Join(ws, "notes.txt")
	done := make(chan struct{})
	go func() {
		callTool(t, c, "write_file", map[string]any{"path": notes, "content": "one\ntwo\n"})
		close(done)
	}()
	<-hub.entered
	if _, err := os.Stat(notes); err == nil {
		t.Errorf("the server wrote before the hub had the begin")
	}
	close(hub.release)
	<-done
	c.Close()
	cl.Close()
	tr, err := trajectory.Read(bytes.NewReader(traj.Bytes()), "trajectory")
	if err != nil {
		t.Fatal(err)
	}
	var call, native int
	for _, ev := range tr.Events {
		if ev.Kind == event.Edit && ev.Source == "watch" && len(ev.Scopes) > 0 && ev.Scopes[0].Path == "notes.txt" {
			if strings.HasPrefix(ev.Command, "mcp write_file") {
				call++
			} else {
				native++
			}
		}
	}
	if call != 1 || native != 0 {
		t.Errorf("notes.txt's edit: %d as the call's, %d before it\n%s", call, native, traj.String())
	}
}

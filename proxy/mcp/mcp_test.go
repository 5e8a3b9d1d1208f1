package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/jsoncheck"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

var binDir string

func TestMain(m *testing.M) { testbin.Main(m, &binDir) }

func serverBin(t *testing.T, name string) string {
	t.Helper()
	p, err := agents.FindAgent(name)
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "%s is not installed (scripts/install-agents.sh): %v", name, err)
	}
	return p
}

// hubFor serves a hub over the py-discount workspace with the given
// condition and returns the workspace and the socket.
func hubFor(t testing.TB, cond policy.Condition) (string, string, *session.Hub) {
	return sessiontest.Serve(t, "../../examples/tasks/py-discount", cond)
}

// connect starts a stdio MCP client on the server, directly or through
// `swetouch mcp`.
func connect(t *testing.T, through bool, sock, ws string, server ...string) *client.Client {
	t.Helper()
	if through {
		return connectVia(t, []string{"--session", sock, "--root", ws}, server...)
	}
	return start(t, server...)
}

// connectVia starts the client on the server behind `swetouch mcp FLAGS --`.
func connectVia(t *testing.T, flags []string, server ...string) *client.Client {
	t.Helper()
	args := append(append([]string{filepath.Join(binDir, "swetouch"), "mcp"}, flags...), "--")
	return start(t, append(args, server...)...)
}

func start(t *testing.T, command ...string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(command[0], os.Environ(), command[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "swetouch-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// TestFilesystemVanilla: the reference filesystem server gives the same
// answers directly and through the relay under vanilla.
func TestFilesystemVanilla(t *testing.T) {
	fs := serverBin(t, "mcp-server-filesystem")
	ws, sock, _ := hubFor(t, policy.Vanilla)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_text_file", map[string]any{"path": filepath.Join(ws, "pricing.py"), "head": 6}},
		{"list_directory", map[string]any{"path": ws}},
		{"get_file_info", map[string]any{"path": filepath.Join(ws, "pricing.py")}},
		{"read_text_file", map[string]any{"path": filepath.Join(ws, "missing.py")}},
	}
	var got [2][]string
	for i, through := range []bool{false, true} {
		c := connect(t, through, sock, ws, fs, ws)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tools.Tools)
		got[i] = append(got[i], string(b))
		for _, cl := range calls {
			res := callTool(t, c, cl.tool, cl.args)
			b, _ := json.Marshal(res)
			got[i] = append(got[i], strings.ReplaceAll(string(b), ws, "WS"))
		}
	}
	// access times move between the two sessions; nothing else may differ
	times := regexp.MustCompile(`(accessed|modified|created): [^\\]*`)
	for k := range got[0] {
		if times.ReplaceAllString(got[0][k], "$1") != times.ReplaceAllString(got[1][k], "$1") {
			t.Errorf("answer %d differs:\n direct  %.300s\n through %.300s", k, got[0][k], got[1][k])
		}
	}
}

// TestFilesystemCounterEdit: a read_text_file that covers the region fires
// the Counter-Edit, and the message comes back as the result's own text
// block after the file's text.
func TestFilesystemCounterEdit(t *testing.T) {
	fs := serverBin(t, "mcp-server-filesystem")
	ws, sock, h := hubFor(t, policy.CounterEdit)
	c := connect(t, true, sock, ws, fs, ws)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	res := callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(ws, "pricing.py"), "head": 6})
	ts := texts(res)
	if len(ts) != 2 || !strings.Contains(ts[0], "def apply_discount") || !strings.HasPrefix(ts[1], "<user-message>") || !strings.Contains(ts[1], "clamped") {
		t.Fatalf("want the file's text, then the message block: %q", ts)
	}
	// a client that reads structuredContent (Claude Code) sees it too,
	// and the result still matches the tool's outputSchema
	sc, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(sc), "clamped") || !strings.Contains(string(sc), "def apply_discount") {
		t.Errorf("structuredContent without the message: %s", sc)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "read_text_file" {
			schema, _ := json.Marshal(tool.OutputSchema)
			jsoncheck.Valid(t, schema, sc)
		}
	}
	if st := h.Status(); st.Unconfirmed != 0 {
		t.Errorf("%d messages unconfirmed", st.Unconfirmed)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "pricing.py"))
	if !strings.Contains(string(b), "clamped") {
		t.Errorf("the Counter-Edit is not in the workspace")
	}
	if st := h.Status(); len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" || st.Running != 0 {
		t.Errorf("hub: %+v", st)
	}
	// a read elsewhere carries nothing
	if ts := texts(callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(ws, "test_pricing.py")})); len(ts) != 1 {
		t.Errorf("second read: %q", ts)
	}
}

// TestFilesystemInPlace: `swetouch mcp --records … --out …` runs a
// session of its own over the directory the server serves (as an agent's
// MCP configuration would start it): the read fires the Counter-Edit
// there, the result carries the message block, and when the client hangs
// up trajectory.jsonl and session.json are written.
func TestFilesystemInPlace(t *testing.T) {
	fs := serverBin(t, "mcp-server-filesystem")
	ws := sessiontest.Workspace(t, "../../examples/tasks/py-discount")
	out := t.TempDir()
	c := connectVia(t, []string{"--records", "../../examples/tasks/py-discount/records.jsonl", "--out", out, "--root", ws}, fs, ws)
	ts := texts(callTool(t, c, "read_text_file", map[string]any{"path": filepath.Join(ws, "pricing.py"), "head": 6}))
	if len(ts) != 2 || !strings.HasPrefix(ts[1], "<user-message>") {
		t.Fatalf("want the file's text, then the message block: %q", ts)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "pricing.py")); !strings.Contains(string(b), "clamped") {
		t.Errorf("the Counter-Edit is not in the workspace")
	}
	c.Close()
	sum, err := os.ReadFile(filepath.Join(out, "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	traj, _ := os.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if !strings.Contains(string(sum), `"interventions_applied": 1`) || !strings.Contains(string(traj), `"tool":"read_text_file"`) ||
		!strings.Contains(string(traj), `"note":"done"`) {
		t.Errorf("session.json:\n%s\ntrajectory:\n%s", sum, traj)
	}
}

// TestMalformedLines: garbage and unknown methods from the client are
// relayed (and logged); the session goes on.
func TestMalformedLines(t *testing.T) {
	fs := serverBin(t, "mcp-server-filesystem")
	ws, sock, _ := hubFor(t, policy.Vanilla)
	cmd, in, r, stderr := startRelay(t, sock, fs, ws)
	send := func(s string) { io.WriteString(in, s+"\n") }
	send(`this is not json`)
	send(`{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":"a-1"`) || !strings.Contains(line, "serverInfo") {
		t.Fatalf("initialize after garbage: %q %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":7,"method":"no/such/method","params":{"_meta":{"x":1}}}`)
	line, _ = r.ReadString('\n')
	if !strings.Contains(line, `"id":7`) || !strings.Contains(line, "error") {
		t.Errorf("unknown method: %q", line)
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	line, _ = r.ReadString('\n')
	if !strings.Contains(line, `"id":8`) || !strings.Contains(line, "result") {
		t.Errorf("tools/call after garbage: %q", line)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("relay exit after EOF: %v", err)
	}
	if !strings.Contains(stderr.String(), "not a JSON-RPC object") {
		t.Errorf("garbage not logged: %q", stderr.String())
	}
}

// startRelay starts `swetouch mcp` on the hub's socket in front of the
// stdio server, with pipes to write it lines and read its answers, and
// what it says on stderr.
func startRelay(t *testing.T, sock string, server ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "swetouch"), append([]string{"mcp", "--session", sock, "--"}, server...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, in, bufio.NewReaderSize(out, 1<<20), stderr
}

// TestCancellation: a call the client cancels mid-way (after its first
// progress notification) closes the hub's action, and the session goes on.
func TestCancellation(t *testing.T) {
	srv := serverBin(t, "mcp-server-everything")
	// armed (an intervention is due), so the relay waits for the hub at
	// each result and the status below is settled
	ws, sock, h := hubFor(t, policy.CounterEdit)
	cmd := exec.Command(filepath.Join(binDir, "swetouch"), "mcp", "--session", sock, "--root", ws, "--", srv)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	r := bufio.NewReader(out)
	send := func(s string) { io.WriteString(in, s+"\n") }
	until := func(pred func(string) bool) string {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("relay closed: %v", err)
			}
			if pred(line) {
				return line
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	until(func(l string) bool { return strings.Contains(l, `"id":1`) })
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":"long-1","method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":2,"steps":20},"_meta":{"progressToken":"p-1"}}}`)
	until(func(l string) bool {
		return strings.Contains(l, "notifications/progress") && strings.Contains(l, `"p-1"`)
	})
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long-1","reason":"user"}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"still here"}}}`)
	if l := until(func(l string) bool { return strings.Contains(l, `"id":2`) }); !strings.Contains(l, "still here") {
		t.Fatalf("after the cancel: %s", l)
	}
	if st := h.Status(); st.Running != 0 {
		t.Errorf("the cancelled call is still an open action: %+v", st)
	}
}

// initialized opens an MCP session over a relay's stdio, and gives the
// way to send it a line.
func initialized(in io.Writer, r *bufio.Reader) (send func(line string)) {
	send = func(s string) { io.WriteString(in, s+"\n") }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r.ReadString('\n')
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send
}

// TestHugeResult: a 3 MiB tools/call result passes to the client whole;
// the session is told its head and tail, the relay says so on stderr,
// and the calls after it are still reported.
func TestHugeResult(t *testing.T) {
	fs := serverBin(t, "mcp-server-filesystem")
	ws, sock, hub := hubFor(t, policy.Vanilla)
	big := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 3<<20/64)
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, in, r, stderr := startRelay(t, sock, fs, ws)
	send := initialized(in, r)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"` + filepath.Join(ws, "big.txt") + `"}}}`)
	line, err := r.ReadString('\n')
	if err != nil || len(line) < len(big) || !strings.Contains(line, `"id":2`) {
		t.Fatalf("the huge result: %d bytes, %v", len(line), err)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"` + filepath.Join(ws, "pricing.py") + `"}}}`)
	if line, _ := r.ReadString('\n'); !strings.Contains(line, `"id":3`) {
		t.Fatalf("the call after it: %q", line)
	}
	in.Close()
	cmd.Wait()
	if !strings.Contains(stderr.String(), "relayed whole, reported to the session as its first and last 16384") {
		t.Errorf("no warning of the huge result: %q", stderr.String())
	}
	// both calls reached the session (the relay sends its reports
	// before it exits)
	if got := hub.Status().Steps; got != 2 {
		t.Errorf("%d steps in the session, want the two calls: reporting stopped", got)
	}
}

// TestToldReadText: a read's text reaches the trajectory as the client
// got it, escapes, text beyond ASCII and invalid UTF-8 included, whether
// the relay tells it as the server's JSON string (a short one) or
// decoded, its head and tail (a long one).
func TestToldReadText(t *testing.T) {
	fs := serverBin(t, "mcp-server-filesystem")
	var traj strings.Builder
	rec, err := trajectory.NewWriter(&traj, trajectory.Header{})
	if err != nil {
		t.Fatal(err)
	}
	ws, sock, hub := sessiontest.Serve(t, "../../examples/tasks/py-discount", policy.Vanilla, sessiontest.Recorded(rec))
	tricky := "say(\"hi\")\t\\n <&> \u2028 caf\u00e9 \U0001F600 \x01 \xff\xfe end\r\n"
	long := strings.Repeat("x = \"\\\\\"\n", 40<<10/10)
	for name, text := range map[string]string{"tricky.py": tricky, "long.py": long} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd, in, r, _ := startRelay(t, sock, fs, ws)
	send := initialized(in, r)
	var got []string // what the client got, in order
	for i, name := range []string{"pricing.py", "tricky.py", "long.py"} {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":%q}}}`, i+2, filepath.Join(ws, name)))
		line, err := r.ReadString('\n')
		var resp struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err != nil || json.Unmarshal([]byte(line), &resp) != nil || len(resp.Result.Content) != 1 {
			t.Fatalf("%s: %v %.200q", name, err, line)
		}
		got = append(got, resp.Result.Content[0].Text)
	}
	in.Close()
	cmd.Wait()
	hub.Status() // the relay's reports are in before it exits
	tr, err := trajectory.Read(strings.NewReader(traj.String()), "trajectory")
	if err != nil {
		t.Fatal(err)
	}
	var outs []*event.Output
	for _, ev := range tr.Events {
		if ev.Tool == "read_text_file" && ev.Output != nil {
			outs = append(outs, ev.Output)
		}
	}
	if len(outs) != 3 {
		t.Fatalf("%d reads recorded with output, want 3:\n%s", len(outs), traj.String())
	}
	for i, text := range got[:2] {
		if outs[i].Text != text || outs[i].Elided {
			t.Errorf("read %d recorded %+q, the client got %+q", i, outs[i].Text, text)
		}
	}
	if o, text := outs[2], got[2]; !o.Elided || o.Head != text[:16<<10] || o.Tail != text[len(text)-16<<10:] || o.Bytes != len(text) {
		t.Errorf("the long read recorded elided %v, %d bytes, head %.40q", o.Elided, o.Bytes, o.Head)
	}
}

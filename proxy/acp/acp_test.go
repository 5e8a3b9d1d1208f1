package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/coder/acp-go-sdk"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/proxy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// hubFor serves a hub over a fresh py-discount workspace under the
// condition and returns the workspace and a client of the hub.
func hubFor(t testing.TB, cond policy.Condition) (string, *session.Client, *session.Hub) {
	ws, sock, h := sessiontest.Serve(t, "../../examples/tasks/py-discount", cond)
	c, err := session.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ws, c, h
}

// agent is an ACP agent from the Go SDK: "read" reads lines 4-6 of
// pricing.py through the editor; "wait" runs until cancelled; "read and
// wait" does both; anything else is remembered and answered.
type agent struct {
	conn    *acp.AgentSideConnection
	ws      string
	mu      sync.Mutex
	prompts []string
	read    string
	// waiting is closed when a "wait" prompt starts; cancelled when
	// session/cancel arrives
	waiting, cancelled chan struct{}
	hasRead            chan struct{} // closed when "read and wait" has read
	got                chan string   // each prompt's text, as it starts
	cancelOnce         sync.Once
	// steering: the agent advertises _session/steering and records what
	// it is steered with (wasSteered is closed at the first)
	steering       bool
	refuseSteering bool // answer every steering request "failed"
	steered        []string
	wasSteered     chan struct{}
}

func (a *agent) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != "_session/steering" {
		return nil, acp.NewMethodNotFound(method)
	}
	var p struct {
		Prompt []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	json.Unmarshal(params, &p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refuseSteering {
		return map[string]any{"outcome": "failed"}, nil
	}
	for _, b := range p.Prompt {
		a.steered = append(a.steered, b.Text)
	}
	if len(a.steered) == len(p.Prompt) {
		close(a.wasSteered)
	}
	return map[string]any{"outcome": "injected"}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}
func (a *agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	res := acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}
	if a.steering {
		res.Meta = map[string]any{"steering": map[string]any{"supported": true}}
	}
	return res, nil
}
func (a *agent) Cancel(context.Context, acp.CancelNotification) error {
	a.cancelOnce.Do(func() { close(a.cancelled) })
	return nil
}
func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}
func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}
func (a *agent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: "s1"}, nil
}
func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, nil
}
func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}
func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	text := ""
	if len(p.Prompt) > 0 && p.Prompt[0].Text != nil {
		text = p.Prompt[0].Text.Text
	}
	a.mu.Lock()
	a.prompts = append(a.prompts, text)
	a.mu.Unlock()
	select {
	case a.got <- text:
	default: // nobody is reading (a benchmark's thousands of turns)
	}
	switch text {
	case "read", "read and wait":
		res, err := a.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(a.ws, "pricing.py"), Line: acp.Ptr(4), Limit: acp.Ptr(3)})
		if err != nil {
			return acp.PromptResponse{}, err
		}
		a.mu.Lock()
		a.read = res.Content
		a.mu.Unlock()
		a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText("read " + fmt.Sprint(len(res.Content)) + " bytes")})
		if text == "read and wait" {
			close(a.hasRead)
			select {
			case <-a.cancelled:
			case <-ctx.Done():
			}
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
	case "write":
		// line 6 of pricing.py (in the region) becomes a percentage
		b, _ := os.ReadFile(filepath.Join(a.ws, "pricing.py"))
		content := strings.Replace(string(b), "    return price - percent\n", "    return price * (100 - percent) / 100\n", 1)
		if _, err := a.conn.WriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: p.SessionId, Path: filepath.Join(a.ws, "pricing.py"), Content: content}); err != nil {
			return acp.PromptResponse{}, err
		}
	case "wait":
		close(a.waiting)
		<-ctx.Done()
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// editor is an ACP client from the Go SDK that serves files from disk and
// remembers what it is shown.
type editor struct {
	mu        sync.Mutex
	user      []string      // user_message_chunk texts
	agentSa   []string      // agent_message_chunk texts
	shown     chan struct{} // closed at the first user_message_chunk
	shownOnce sync.Once
	buffers   map[string]string // non-nil: writes stay here, off the disk
}

func (e *editor) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
}
func (e *editor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch u := n.Update; {
	case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
		e.user = append(e.user, u.UserMessageChunk.Content.Text.Text)
		e.shownOnce.Do(func() { close(e.shown) })
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		e.agentSa = append(e.agentSa, u.AgentMessageChunk.Content.Text.Text)
	}
	return nil
}
func (e *editor) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.buffers != nil {
		e.buffers[p.Path] = p.Content // kept unsaved, as an editor may
		return acp.WriteTextFileResponse{}, nil
	}
	return acp.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}
func (e *editor) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	lines := strings.SplitAfter(string(b), "\n")
	start, end := 0, len(lines)
	if p.Line != nil {
		start = min(max(*p.Line-1, 0), len(lines))
	}
	if p.Limit != nil {
		end = min(start+*p.Limit, len(lines))
	}
	return acp.ReadTextFileResponse{Content: strings.Join(lines[start:end], "")}, nil
}
func (e *editor) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{TerminalId: "t1"}, nil
}
func (e *editor) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, nil
}
func (e *editor) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, nil
}
func (e *editor) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{Output: "ok"}, nil
}
func (e *editor) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, nil
}

// tap records the lines written through it.
type tap struct {
	mu    sync.Mutex
	w     io.Writer
	lines bytes.Buffer
}

func (t *tap) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.lines.Write(p)
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *tap) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lines.String()
}

// wiring is an editor and an agent, connected directly or through the
// relay, with what each receives recorded.
type wiring struct {
	ed        *editor
	ag        *agent
	edConn    *acp.ClientSideConnection
	toAgent   *tap // what the agent receives
	toEditor  *tap // what the editor receives
	closeAll  func()
	sessionID acp.SessionId
}

func wire(t testing.TB, ws string, relayed bool, opts ...Option) *wiring {
	return wireAgent(t, ws, relayed, false, opts...)
}

func wireAgent(t testing.TB, ws string, relayed, steering bool, opts ...Option) *wiring {
	t.Helper()
	edOutR, edOutW := io.Pipe() // editor → (relay →) agent
	agInR, agInW := io.Pipe()   // → agent
	agOutR, agOutW := io.Pipe() // agent → (relay →) editor
	edInR, edInW := io.Pipe()   // → editor
	w := &wiring{ed: &editor{shown: make(chan struct{})}, ag: &agent{got: make(chan string, 16), ws: ws, steering: steering, waiting: make(chan struct{}), cancelled: make(chan struct{}), hasRead: make(chan struct{}), wasSteered: make(chan struct{})}, toAgent: &tap{w: agInW}, toEditor: &tap{w: edInW}}
	if relayed {
		r := NewRelay(w.toAgent, w.toEditor, append(opts, WithRoot(ws))...)
		go proxy.Pipe(r.AgentWriter(), edOutR, r.FromEditor)
		go proxy.Pipe(r.EditorWriter(), agOutR, r.FromAgent)
	} else {
		go io.Copy(w.toAgent, edOutR)
		go io.Copy(w.toEditor, agOutR)
	}
	w.ag.conn = acp.NewAgentSideConnection(w.ag, agOutW, agInR)
	w.edConn = acp.NewClientSideConnection(w.ed, edOutW, edInR)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	w.ag.conn.SetLogger(quiet)
	w.edConn.SetLogger(quiet)
	w.closeAll = func() {
		for _, c := range []io.Closer{edOutW, agInW, agOutW, edInW} {
			c.Close()
		}
	}
	t.Cleanup(w.closeAll)
	ctx := context.Background()
	if _, err := w.edConn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	s, err := w.edConn.NewSession(ctx, acp.NewSessionRequest{Cwd: ws, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	w.sessionID = s.SessionId
	return w
}

func (w *wiring) prompt(t testing.TB, ctx context.Context, text string) acp.StopReason {
	t.Helper()
	res, err := w.edConn.Prompt(ctx, acp.PromptRequest{SessionId: w.sessionID, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return res.StopReason
}

// TestVanillaTransparent: under vanilla, with a live hub, the editor and
// the agent receive exactly the bytes they receive without the relay.
func TestVanillaTransparent(t *testing.T) {
	run := func(relayed bool) (string, string) {
		ws, hub, _ := hubFor(t, policy.Vanilla)
		w := wire(t, ws, relayed, WithHub(hub))
		w.prompt(t, context.Background(), "read")
		w.prompt(t, context.Background(), "hello")
		w.closeAll()
		// the workspace path differs between the two sessions
		return strings.ReplaceAll(w.toAgent.String(), ws, "WS"), strings.ReplaceAll(w.toEditor.String(), ws, "WS")
	}
	directAgent, directEditor := run(false)
	relayAgent, relayEditor := run(true)
	if directAgent != relayAgent {
		t.Errorf("the agent receives other bytes through the relay:\ndirect:\n%s\nrelayed:\n%s", directAgent, relayAgent)
	}
	if directEditor != relayEditor {
		t.Errorf("the editor receives other bytes through the relay:\ndirect:\n%s\nrelayed:\n%s", directEditor, relayEditor)
	}
}

// TestCounterEditOnRead: the agent's fs/read_text_file over the region
// fires the Counter-Edit before the editor answers, so the agent reads the
// user's lines; when the turn ends the message arrives as a user turn of
// its own, and the editor is shown it; the editor's next prompt waits for
// that turn.
func TestCounterEditOnRead(t *testing.T) {
	ws, hub, h := hubFor(t, policy.CounterEdit)
	w := wire(t, ws, true, WithHub(hub))
	if got := w.prompt(t, context.Background(), "read"); got != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %s", got)
	}
	w.prompt(t, context.Background(), "next")
	w.ag.mu.Lock()
	prompts, read := append([]string(nil), w.ag.prompts...), w.ag.read
	w.ag.mu.Unlock()
	if !strings.Contains(read, "clamped") && !strings.Contains(read, "min(") {
		t.Errorf("the agent read %q: want the Counter-Edit's lines", read)
	}
	if len(prompts) != 3 || prompts[0] != "read" || !strings.Contains(prompts[1], "clamped") || prompts[2] != "next" {
		t.Errorf("the agent's turns %q: want read, the user's message, next", prompts)
	}
	w.ed.mu.Lock()
	user := append([]string(nil), w.ed.user...)
	w.ed.mu.Unlock()
	if len(user) != 1 || user[0] != prompts[1] {
		t.Errorf("the editor was shown %q as the user's messages, want the message the agent got", user)
	}
	if st := h.Status(); len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" {
		t.Errorf("hub: %+v", st)
	}
}

// TestCancelMidTurn: the editor's session/cancel passes through and the
// agent ends the turn as cancelled.
func TestCancelMidTurn(t *testing.T) {
	ws, hub, _ := hubFor(t, policy.Vanilla)
	w := wire(t, ws, true, WithHub(hub))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan acp.StopReason, 1)
	go func() {
		res, err := w.edConn.Prompt(ctx, acp.PromptRequest{SessionId: w.sessionID, Prompt: []acp.ContentBlock{acp.TextBlock("wait")}})
		// the SDK answers a cancelled call itself, with -32800
		if err != nil && !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "-32800") {
			t.Errorf("prompt: %v", err)
		}
		done <- res.StopReason
	}()
	<-w.ag.waiting // the agent is in the turn
	cancel()
	<-w.ag.cancelled // session/cancel reached the agent
	if got := <-done; got != acp.StopReasonCancelled && got != "" {
		t.Errorf("stop reason %q, want cancelled", got)
	}
}

// TestLargeMessage: a 20 MiB answer (a file read) passes through whole and
// the session goes on.
func TestLargeMessage(t *testing.T) {
	var toAgent, toEditor bytes.Buffer
	r := NewRelay(&toAgent, &toEditor)
	big := strings.Repeat("x", 20<<20)
	in := fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":%q}}\n{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"s\"}}\n", big)
	if err := proxy.Pipe(r.AgentWriter(), strings.NewReader(in), r.FromEditor); err != nil {
		t.Fatal(err)
	}
	if toAgent.String() != in {
		t.Errorf("relayed %d bytes, want the %d that came", toAgent.Len(), len(in))
	}
}

// TestWriteInBuffer: an editor that keeps the agent's fs/write_text_file
// in a buffer (the disk never changes) still has the write observed, with
// the lines it changes against the file (and so it fires the edit-
// triggered Counter-Edit); an editor that writes to disk has it observed
// once, by the watcher.
func TestWriteInBuffer(t *testing.T) {
	for _, buffered := range []bool{true, false} {
		var traj bytes.Buffer
		rec, _ := trajectory.NewWriter(&traj, trajectory.Header{})
		ws, sock, h := sessiontest.Serve(t, "../../examples/tasks/py-discount", policy.CounterEdit, sessiontest.Watched(), sessiontest.Recorded(rec))
		c, err := session.Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		w := wire(t, ws, true, WithHub(c), WithoutTrafficEvents())
		if buffered {
			w.ed.buffers = map[string]string{}
		}
		w.prompt(t, context.Background(), "write")
		c.Close()
		var fromRelay, fromWatcher []event.Event
		tr, err := trajectory.Read(bytes.NewReader(traj.Bytes()), "trajectory")
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range tr.Events {
			if ev.Kind == event.Edit && ev.Actor == event.Agent {
				if ev.Tool == "fs/write_text_file" {
					fromRelay = append(fromRelay, ev)
				} else {
					fromWatcher = append(fromWatcher, ev)
				}
			}
		}
		want := []event.Scope{event.LineScope("pricing.py", 6, 6)}
		switch {
		case buffered && (len(fromRelay) != 1 || len(fromWatcher) != 0 || !slices.Equal(fromRelay[0].Scopes, want)):
			t.Errorf("buffered write: from the relay %+v, from the watcher %+v", fromRelay, fromWatcher)
		case !buffered && (len(fromRelay) != 0 || len(fromWatcher) != 1 || !slices.Equal(fromWatcher[0].Scopes, want)):
			t.Errorf("write to disk: from the relay %+v, from the watcher %+v", fromRelay, fromWatcher)
		}
		if st := h.Status(); len(st.Interventions) != 1 || st.Interventions[0].Trigger != "edit" {
			t.Errorf("buffered %v: interventions %+v, want one fired by the edit", buffered, st.Interventions)
		}
	}
}

// TestObservedToolCalls: a completed read tool call (Claude's Read input
// through its ACP adapter) over the region fires the Counter-Edit; a
// stdio MCP server of session/new is rewritten to run through swetouch
// mcp, others untouched; every message is in the traffic log.
func TestObservedToolCalls(t *testing.T) {
	ws, hub, h := hubFor(t, policy.CounterEdit)
	var toAgent, toEditor, traffic bytes.Buffer
	fixed := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	r := NewRelay(&toAgent, &toEditor, WithHub(hub), WithRoot(ws), WithTraffic(&traffic), WithClock(func() time.Time { return fixed }),
		WithMCPWrapper(WrapMCP("/bin/swetouch", "/s.sock", ws)))
	newSession := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"fs","command":"npx","args":["-y","srv"],"env":[]},{"type":"http","name":"web","url":"http://x","headers":[]}]}}`
	got := r.FromEditor([]byte(newSession))
	want := `{"id":1,"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/w","mcpServers":[{"args":["mcp","--session","/s.sock","--root","` + ws + `","--","npx","-y","srv"],"command":"/bin/swetouch","env":[],"name":"fs"},{"headers":[],"name":"web","type":"http","url":"http://x"}]}}`
	if string(got) != want {
		t.Errorf("session/new:\n got %s\nwant %s", got, want)
	}
	r.FromEditor([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`))
	update := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","kind":"read","status":"completed","title":"Read pricing.py","rawInput":{"file_path":"` + filepath.Join(ws, "pricing.py") + `","offset":4,"limit":3}}}}`
	if out := r.FromAgent([]byte(update)); string(out) != update {
		t.Errorf("the update was changed: %s", out)
	}
	if st := h.Status(); len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" {
		t.Errorf("hub: %+v", st)
	}
	// the turn ends: the editor sees the end, then the message as a user
	// message; the agent gets it as a prompt of the relay's own
	r.FromAgent([]byte(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`))
	if !strings.Contains(toEditor.String(), `"stopReason":"end_turn"`) || !strings.Contains(toEditor.String(), "user_message_chunk") {
		t.Errorf("editor got:\n%s", toEditor.String())
	}
	if !strings.Contains(toAgent.String(), `{"id":"swetouch-1","jsonrpc":"2.0","method":"session/prompt"`) || !strings.Contains(toAgent.String(), "clamped") {
		t.Errorf("agent got:\n%s", toAgent.String())
	}
	if n := strings.Count(traffic.String(), "\n"); n != 6 || !strings.Contains(traffic.String(), `{"time":"2026-11-29T00:00:00Z","from":"editor","message":{"jsonrpc":"2.0","id":1,`) {
		t.Errorf("traffic log (%d lines):\n%s", n, traffic.String())
	}
}

// BenchmarkPrompt is a prompt turn with one file read through the editor,
// directly and through the relay with a live hub under vanilla: the
// difference of the two ns/op is the relay's added latency per turn (two
// requests: the prompt and the read). Budget: 150 µs per request.
func BenchmarkPrompt(b *testing.B) {
	for _, relayed := range []bool{false, true} {
		name := "direct"
		if relayed {
			name = "relayed"
		}
		b.Run(name, func(b *testing.B) {
			ws, hub, _ := hubFor(b, policy.Vanilla)
			w := wire(b, ws, relayed, WithHub(hub))
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.prompt(b, ctx, "read")
			}
		})
	}
}

// TestToolCallUpdatesMerge: a tool call told in parts (Claude's adapter:
// the kind first, then the input and locations, then only the status) is
// observed as the whole call when it completes.
func TestToolCallUpdatesMerge(t *testing.T) {
	ws, hub, h := hubFor(t, policy.CounterEdit)
	var toAgent, toEditor bytes.Buffer
	r := NewRelay(&toAgent, &toEditor, WithHub(hub), WithRoot(ws), WithoutTrafficEvents())
	r.FromEditor([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`))
	for _, u := range []string{
		`{"sessionUpdate":"tool_call","toolCallId":"c1","kind":"read","title":"Read","status":"pending"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","rawInput":{"file_path":"pricing.py","offset":4,"limit":3},"locations":[{"path":"pricing.py","line":4}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c2","kind":"read","status":"completed"}`, // another call, no input: nothing
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1"}`,
	} {
		r.FromAgent([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`))
	}
	if st := h.Status(); st.Steps != 0 {
		t.Fatalf("observed before the call completed: %+v", st)
	}
	r.FromAgent([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}`))
	if st := h.Status(); st.Steps != 1 || len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" {
		t.Errorf("hub after the completion: %+v", st)
	}
}

package e2e_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/coder/acp-go-sdk"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// acpEditor is an editor from the Go ACP SDK: it serves the agent's file
// reads and writes from disk and remembers the user messages it is shown.
type acpEditor struct {
	mu   sync.Mutex
	user []string
}

func (e *acpEditor) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if len(p.Options) == 0 {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: p.Options[0].OptionId}}}, nil
}
func (e *acpEditor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if u := n.Update.UserMessageChunk; u != nil && u.Content.Text != nil {
		e.mu.Lock()
		e.user = append(e.user, u.Content.Text.Text)
		e.mu.Unlock()
	}
	return nil
}
func (e *acpEditor) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}
func (e *acpEditor) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	b, err := os.ReadFile(p.Path)
	return acp.ReadTextFileResponse{Content: string(b)}, err
}
func (e *acpEditor) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, io.ErrUnexpectedEOF
}
func (e *acpEditor) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, nil
}
func (e *acpEditor) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, nil
}
func (e *acpEditor) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, nil
}
func (e *acpEditor) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, nil
}

// acpFixture is the scripted model server with an agent's ACP script, and
// a watched, recorded hub over py-discount under Counter-Edit.
type acpFixture struct {
	srv   *modelserver.Server
	model *httptest.Server
	traj  *bytes.Buffer
	ws    string
	sock  string
	hub   *session.Hub
}

func newACPFixture(t *testing.T, agent string) *acpFixture {
	t.Helper()
	s, err := modelserver.LoadScript(filepath.Join(examplesDir, "agents", agent, "acp.script.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &acpFixture{srv: modelserver.NewServer(s, nil), traj: &bytes.Buffer{}}
	f.model = httptest.NewServer(f.srv)
	t.Cleanup(f.model.Close)
	rec, _ := trajectory.NewWriter(f.traj, trajectory.Header{Task: "py-discount"})
	f.ws, f.sock, f.hub = sessiontest.Serve(t, filepath.Join(examplesDir, "tasks", "py-discount"), policy.CounterEdit, sessiontest.Watched(), sessiontest.Recorded(rec))
	return f
}

// delivered checks that the user's message reached the model (it is in a
// request the agent made) and that the editor was shown it once.
func (f *acpFixture) delivered(t *testing.T, ed *acpEditor, stderr string) {
	t.Helper()
	reached := false
	for _, e := range f.srv.Exchanges() {
		if strings.Contains(string(e.Request), "I just edited pricing.py") {
			reached = true
		}
	}
	if !reached {
		t.Errorf("the message did not reach the model (%d exchanges)\n%s", len(f.srv.Exchanges()), stderr)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.user) != 1 || !strings.Contains(ed.user[0], "clamped") {
		t.Errorf("the editor was shown %q as user messages", ed.user)
	}
}

// editorSession starts the command (a relay in front of an agent) in ws
// and opens a session in ws from a Go SDK editor; done closes the
// editor's side and waits for the relay, so what it recorded is whole.
func editorSession(t *testing.T, ws string, env []string, command ...string) (ed *acpEditor, conn *acp.ClientSideConnection, sess acp.SessionId, stderr *bytes.Buffer, done func()) {
	t.Helper()
	cmd := exec.Command(command[0], command[1:]...)
	stderr = &bytes.Buffer{}
	cmd.Dir, cmd.Env, cmd.Stderr = ws, env, stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = func() { in.Close(); cmd.Wait() }
	t.Cleanup(done)
	ed = &acpEditor{}
	conn = acp.NewClientSideConnection(ed, in, out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	s, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: ws, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\n%s", err, stderr.String())
	}
	return ed, conn, s.SessionId, stderr, done
}

// converse holds a conversation with the command from a Go SDK editor:
// the prompt "Make the discount a percentage.", then "Thanks." (which
// waits for the turn the user's message runs in; it may find the script
// run out). The relay has ended when it returns.
func converse(t *testing.T, ws string, env []string, command ...string) (*acpEditor, string) {
	t.Helper()
	ed, conn, sess, stderr, done := editorSession(t, ws, env, command...)
	ctx := context.Background()
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess, Prompt: []acp.ContentBlock{acp.TextBlock("Make the discount a percentage.")}}); err != nil {
		t.Fatalf("prompt: %v\n%s", err, stderr.String())
	}
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess, Prompt: []acp.ContentBlock{acp.TextBlock("Thanks.")}}); err != nil {
		t.Logf("second prompt: %v", err) // the checks that follow are what matter
	}
	done()
	return ed, stderr.String()
}

// TestGeminiACP drives Gemini CLI in --acp mode, unmodified, through
// `swetouch acp`, from an editor built on the Go ACP SDK, with the
// scripted model server. Gemini 0.61's read_file reads the disk itself,
// so that read is seen as its completed tool call (scope: the file) and
// fires the Counter-Edit after it, as a read command does in the shell.
// Its replace tool reads the file through the editor (fs/read_text_file,
// observed with its scope) and so edits the user's version: the snippet
// it returns to the model holds the user's line. The editor's write is
// observed with its lines; after the turn the user's message goes to
// Gemini as a user turn, reaches the model's next request, and is echoed
// to the editor.
func TestGeminiACP(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	p, gemini, err := agents.Find("gemini")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "gemini is not installed: %v", err)
	}
	f := newACPFixture(t, "gemini")
	srv, ts, ws, sock, h := f.srv, f.model, f.ws, f.sock, f.hub

	// the injected turn runs before the editor's next prompt goes
	ed, _ := converse(t, ws, append(os.Environ(), p.Env(ts.URL, filepath.Join(bin, "swetouch"), t.TempDir())...),
		filepath.Join(bin, "swetouch"), "acp", "--session", sock, "--root", ws, "--", gemini, "--acp", "--skip-trust", "-m", "gemini-2.5-pro")
	if st := h.Status(); len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" {
		t.Errorf("hub: %+v", st)
	}
	tr, err := trajectory.Read(bytes.NewReader(f.traj.Bytes()), "trajectory")
	if err != nil {
		t.Fatal(err)
	}
	var toolRead, fsRead, write bool
	ceAfterToolRead := false
	for _, ev := range tr.Events {
		switch {
		case ev.Kind == event.Read && ev.Source == "acp" && ev.Tool != "fs/read_text_file" && len(ev.Scopes) == 1 && ev.Scopes[0].Path == "pricing.py":
			toolRead = true
		case ev.Kind == event.Read && ev.Tool == "fs/read_text_file" && len(ev.Scopes) == 1 && ev.Scopes[0].Path == "pricing.py":
			fsRead = true
		case ev.Kind == event.Edit && ev.Actor == event.User:
			ceAfterToolRead = toolRead && !fsRead
		case ev.Kind == event.Edit && ev.Actor == event.Agent && len(ev.Scopes) == 1 && ev.Scopes[0].Path == "pricing.py":
			// the CE put one line above the agent's: its line is 7, not 6
			write = ev.Scopes[0].Start == 7 && ev.Scopes[0].End == 7
		}
	}
	if !toolRead || !fsRead || !write || !ceAfterToolRead {
		t.Errorf("trajectory: read_file tool call %v, Counter-Edit right after it %v, fs read %v, write of line 7 %v\n%s", toolRead, ceAfterToolRead, fsRead, write, f.traj.String())
	}
	var replaceSawEdit, reached bool
	for _, e := range srv.Exchanges() {
		body := string(e.Request)
		if strings.Contains(body, "Successfully modified file") && strings.Contains(body, "percent = min(max(percent, 0), 100)") {
			replaceSawEdit = true
		}
		if strings.Contains(body, "I just edited pricing.py") {
			reached = true
		}
	}
	if !replaceSawEdit || !reached {
		t.Errorf("model requests: replace edited the user's version %v, the message reached the model %v (%d exchanges)", replaceSawEdit, reached, len(srv.Exchanges()))
	}
	got, _ := os.ReadFile(filepath.Join(ws, "pricing.py"))
	if !strings.Contains(string(got), "    percent = min(max(percent, 0), 100)  # out-of-range discounts are clamped\n    return price * (100 - percent) / 100\n") {
		t.Errorf("pricing.py does not hold both edits:\n%s", got)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.user) != 1 || !strings.Contains(ed.user[0], "clamped") {
		t.Errorf("the editor was shown %q as user messages", ed.user)
	}
}

// TestClaudeACP drives Claude Code through its ACP adapter
// (@agentclientprotocol/claude-agent-acp), unmodified, behind `swetouch
// acp`, with the scripted model server. Claude reads the file itself and
// the adapter reports the Read with its offset and limit: the read is
// observed with those lines and fires the Counter-Edit. The adapter
// advertises _session/steering, so the user's message goes into the
// running turn and is in the model's next request; the editor is shown
// it once.
func TestClaudeACP(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := agents.Find("claude")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "claude is not installed: %v", err)
	}
	adapter, err := agents.FindAgent("claude-agent-acp")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "the Claude ACP adapter is not installed: %v", err)
	}
	f := newACPFixture(t, "claude")
	ts, ws, sock, h := f.model, f.ws, f.sock, f.hub

	// this machine runs tests as root: Claude Code refuses to run there
	// unless told it is in a sandbox
	env := append(os.Environ(), p.Env(ts.URL, filepath.Join(bin, "swetouch"), t.TempDir())...)
	env = append(env, "HOME="+t.TempDir(), "CLAUDE_CONFIG_DIR="+t.TempDir(), "IS_SANDBOX=1")
	ed, stderr := converse(t, ws, env, filepath.Join(bin, "swetouch"), "acp", "--session", sock, "--root", ws, "--", adapter)
	if st := h.Status(); len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" {
		t.Errorf("hub: %+v\n%s", st, stderr)
	}
	tr, err := trajectory.Read(bytes.NewReader(f.traj.Bytes()), "trajectory")
	if err != nil {
		t.Fatal(err)
	}
	var read bool
	for _, ev := range tr.Events {
		if ev.Kind == event.Read && ev.Source == "acp" && len(ev.Scopes) == 1 && ev.Scopes[0] == event.LineScope("pricing.py", 4, 6) {
			read = true
		}
	}
	if !read {
		t.Errorf("trajectory: no read of pricing.py:4-6 from the adapter's tool call\n%s", f.traj.String())
	}
	f.delivered(t, ed, stderr)
}

// TestCodexACP drives Codex through its ACP adapter
// (@agentclientprotocol/codex-acp), unmodified, behind `swetouch acp`,
// with the scripted model server. Codex runs its shell command itself and
// the adapter reports `nl -ba pricing.py | sed -n 4,6p` as a read tool call
// of the file, with no command and no lines: the relay takes it as a
// whole-file read, which fires the Counter-Edit; the user's message
// reaches the model and is shown to the editor once.
func TestCodexACP(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := agents.Find("codex")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "codex is not installed: %v", err)
	}
	adapter, err := agents.FindAgent("codex-acp")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "the Codex ACP adapter is not installed: %v", err)
	}
	f := newACPFixture(t, "codex")
	env := append(os.Environ(), p.Env(f.model.URL, filepath.Join(bin, "swetouch"), t.TempDir())...)
	ed, stderr := converse(t, f.ws, env, filepath.Join(bin, "swetouch"), "acp", "--session", f.sock, "--root", f.ws, "--", adapter)
	if st := f.hub.Status(); len(st.Interventions) != 1 || st.Interventions[0].Outcome != "applied" {
		t.Errorf("hub: %+v\n%s\n%s", st, stderr, f.traj.String())
	}
	if !strings.Contains(f.traj.String(), `"source":"acp","actor":"agent","kind":"read","scopes":[{"path":"pricing.py","precision":"file"}]`) {
		t.Errorf("trajectory: no read of pricing.py from the adapter's tool call\n%s", f.traj.String())
	}
	f.delivered(t, ed, stderr)
}

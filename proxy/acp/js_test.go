package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session/sessiontest"
)

func TestMain(m *testing.M) { testbin.Main(m, nil) }

// jsPeers finds node, the TypeScript ACP SDK (scripts/install-agents.sh)
// and the built swetouch, or skips.
func jsPeers(t *testing.T) (node, sdk, swetouch string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "node is not installed")
	}
	sdk = filepath.Join(agents.AgentsDir(), "node_modules", "@agentclientprotocol", "sdk")
	if _, err := os.Stat(filepath.Join(sdk, "package.json")); err != nil {
		testsupport.Missing(t, testsupport.Agents, "@agentclientprotocol/sdk is not installed (scripts/install-agents.sh): %v", err)
	}
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return node, sdk, filepath.Join(bin, "swetouch")
}

// jsSession is what the TypeScript editor and agent saw of one session.
type jsSession struct {
	transcriptLines []string // the editor's transcript, one JSON line each
	seen            []string // the same, sorted (the SDK's order is its own)
	editor, agent   string   // the bytes each received, the workspace path masked
}

// runJS runs the TypeScript editor on the scenario against the
// TypeScript agent started as agentCmd ("{agent}" stands for it).
func runJS(t *testing.T, ws string, scenario []string, agentCmd ...string) jsSession {
	t.Helper()
	node, sdk, _ := jsPeers(t)
	dir := t.TempDir()
	agentLog, clientLog := filepath.Join(dir, "agent.raw"), filepath.Join(dir, "editor.raw")
	var s jsSession
	var cmd []string
	for _, a := range agentCmd {
		if a == "{agent}" {
			cmd = append(cmd, node, "testdata/js-agent.mjs", sdk)
			continue
		}
		cmd = append(cmd, a)
	}
	sc, _ := json.Marshal(scenario)
	c := exec.Command(node, append([]string{"testdata/js-client.mjs", sdk, ws, string(sc)}, cmd...)...)
	c.Env = append(os.Environ(), "JS_AGENT_LOG="+agentLog, "JS_CLIENT_LOG="+clientLog)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s\n%s", cmd, err, out, stderr.String())
	}
	s.transcriptLines = strings.Split(strings.TrimSpace(string(out)), "\n")
	s.seen = slices.Sorted(slices.Values(s.transcriptLines))
	mask := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.ReplaceAll(string(b), ws, "WS")
	}
	s.editor, s.agent = mask(clientLog), mask(agentLog)
	return s
}

// seenAny reports whether a transcript line of the kind holds sub.
func (s jsSession) seenAny(kind, sub string) bool {
	for _, l := range s.transcriptLines {
		if strings.Contains(l, `"kind":"`+kind+`"`) && strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// TestJSPeersVanilla: with the official TypeScript SDK's editor and
// agent, the session through `swetouch acp` (joined to a vanilla hub) is
// byte for byte the session without it, both ways: reads with line and
// limit, a write, a turn cancelled mid-way, a 20 MiB file read, and a
// command in an editor terminal.
func TestJSPeersVanilla(t *testing.T) {
	_, _, swetouch := jsPeers(t)
	big := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 20<<20/64)
	scenario := []string{"read pricing.py 4 3", "hello", "wait", "big big.txt", "write notes.txt x y", "term grep -c def pricing.py"}
	prepare := func(ws string) {
		if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wsDirect, _, _ := sessiontest.Serve(t, "../../examples/tasks/py-discount", policy.Vanilla)
	prepare(wsDirect)
	direct := runJS(t, wsDirect, scenario, "{agent}")
	ws, sock, h := sessiontest.Serve(t, "../../examples/tasks/py-discount", policy.Vanilla, sessiontest.Watched())
	prepare(ws)
	relayed := runJS(t, ws, scenario, swetouch, "acp", "--session", sock, "--root", ws, "--", "{agent}")

	if !direct.seenAny("stop", "cancelled") || !direct.seenAny("agent_message_chunk", "read 20971520 characters") ||
		!direct.seenAny("agent_message_chunk", `    return price - percent\n`) {
		t.Fatalf("the direct session is not what the test expects:\n%s", strings.Join(direct.transcriptLines, "\n"))
	}
	if !slices.Equal(direct.seen, relayed.seen) {
		t.Errorf("the editor saw\ndirect:\n%s\nthrough the relay:\n%s", strings.Join(direct.seen, "\n"), strings.Join(relayed.seen, "\n"))
	}
	if direct.editor != relayed.editor {
		t.Errorf("the bytes the editor received differ (%d direct, %d relayed)", len(direct.editor), len(relayed.editor))
	}
	if direct.agent != relayed.agent {
		t.Errorf("the bytes the agent received differ:\ndirect:\n%.2000s\nrelayed:\n%.2000s", direct.agent, relayed.agent)
	}
	if !direct.seenAny("agent_message_chunk", "exit 0: 2") {
		t.Errorf("the terminal command's output is not what the test expects:\n%s", strings.Join(direct.transcriptLines, "\n"))
	}
	if st := h.Status(); st.Steps < 4 || len(st.Interventions) != 0 {
		t.Errorf("the hub saw %d actions and %d interventions; want the reads and the write, none", st.Steps, len(st.Interventions))
	}
}

// TestJSPeersInPlace: `swetouch acp --records … --out …` runs a session
// of its own over the directory the TypeScript agent works in, as an
// editor would start it. The agent's read of the region (fs/read_text_file
// with line and limit) fires the Counter-Edit before the editor answers,
// so the agent reads the user's line; after the turn the user's message
// is the agent's next user turn, and the editor is shown it; the editor's
// next prompt waits for that turn; the agent's own bash runs through the
// shim; a command in an editor terminal (terminal/create) is classified
// with its lines. trajectory.jsonl and session.json say so.
func TestJSPeersInPlace(t *testing.T) {
	_, _, swetouch := jsPeers(t)
	ws := sessiontest.Workspace(t, "../../examples/tasks/py-discount")
	out := t.TempDir()
	records, _ := filepath.Abs("../../examples/tasks/py-discount/records.jsonl")
	s := runJS(t, ws, []string{"read pricing.py 4 3", "shell grep -c clamped pricing.py", "term sed -n 1,3p test_pricing.py", "thanks"},
		swetouch, "acp", "--records", records, "--out", out, "--root", ws, "--", "{agent}")

	const userLine = "percent = min(max(percent, 0), 100)"
	const message = "I just edited pricing.py (lines 4-6)"
	if !s.seenAny("agent_message_chunk", userLine) {
		t.Errorf("the agent's read did not carry the Counter-Edit:\n%s", strings.Join(s.transcriptLines, "\n"))
	}
	if !s.seenAny("user_message_chunk", message) || !s.seenAny("agent_message_chunk", "heard: Out-of-range discounts") {
		t.Errorf("the message was not a user turn shown to the editor:\n%s", strings.Join(s.transcriptLines, "\n"))
	}
	if !s.seenAny("agent_message_chunk", `"1\n"`) {
		t.Errorf("the agent's shell did not see the user's line:\n%s", strings.Join(s.transcriptLines, "\n"))
	}
	// the agent got: the read, the user's turn, then the editor's held prompt
	order := []string{`"text":"read pricing.py 4 3"`, message, `"text":"shell grep -c clamped pricing.py"`, `"text":"thanks"`}
	at := -1
	for _, o := range order {
		i := strings.Index(s.agent, o)
		if i < at {
			t.Errorf("the agent received %q out of order:\n%s", o, s.agent)
		}
		at = i
	}

	tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var read, applied, shell, term bool
	for _, ev := range tr.Events {
		switch {
		case ev.Kind == event.Read && ev.Tool == "fs/read_text_file" && len(ev.Scopes) == 1 && ev.Scopes[0] == event.LineScope("pricing.py", 4, 6):
			read = true
		case ev.Kind == event.Intervention && ev.Attempt != nil && ev.Attempt.Outcome == "applied":
			applied = read
		case ev.Kind == event.Read && ev.Command == "grep -c clamped pricing.py":
			shell = true
		case ev.Kind == event.Read && ev.Source == "acp" && strings.Contains(ev.Command, "sed -n 1,3p test_pricing.py") &&
			len(ev.Scopes) == 1 && ev.Scopes[0] == event.LineScope("test_pricing.py", 1, 3):
			term = true
		}
	}
	// every message is in the trajectory, as it was sent, by its sender
	var fromAgent, fromEditor, fromUs []string
	for _, ev := range tr.Events {
		if ev.Kind != event.Traffic {
			continue
		}
		raw := strings.ReplaceAll(string(ev.Raw), ws, "WS")
		switch ev.Actor {
		case event.Agent:
			fromAgent = append(fromAgent, raw)
		case event.User:
			fromEditor = append(fromEditor, raw)
		case event.Harness:
			fromUs = append(fromUs, raw)
		}
	}
	received := func(raw string, ours func(string) bool) (theirs []string) {
		for _, l := range strings.Split(strings.TrimSpace(raw), "\n") {
			if !ours(l) {
				theirs = append(theirs, l)
			}
		}
		return theirs
	}
	echo := func(l string) bool { return strings.Contains(l, "user_message_chunk") }
	injected := func(l string) bool { return strings.Contains(l, `"id":"swetouch-`) }
	// the agent's answer to the user's turn is ours: the editor never sees it
	answers := slices.DeleteFunc(slices.Clone(fromAgent), func(l string) bool { return !injected(l) })
	fromAgent = slices.DeleteFunc(fromAgent, injected)
	if len(answers) != 1 {
		t.Errorf("the agent's answers to the user's turn: %q", answers)
	}
	if want := received(s.editor, echo); !slices.Equal(fromAgent, want) {
		t.Errorf("the agent's traffic in the trajectory:\n%s\nwhat the editor received from it:\n%s", strings.Join(fromAgent, "\n"), strings.Join(want, "\n"))
	}
	if want := received(s.agent, injected); !slices.Equal(fromEditor, want) {
		t.Errorf("the editor's traffic in the trajectory:\n%s\nwhat the agent received from it:\n%s", strings.Join(fromEditor, "\n"), strings.Join(want, "\n"))
	}
	if len(fromUs) != 2 || !injected(fromUs[0]) && !injected(fromUs[1]) {
		t.Errorf("swetouch's own traffic: %q", fromUs)
	}
	if !read || !applied || !shell || !term {
		t.Errorf("trajectory: fs read of pricing.py:4-6 %v, Counter-Edit applied after it %v, the agent's grep through the shim %v, the editor terminal's sed with its lines %v",
			read, applied, shell, term)
	}
	var sum struct {
		Instance  string `json:"instance"`
		Condition string `json:"condition"`
		Applied   int    `json:"interventions_applied"`
		Delivered int    `json:"messages_delivered"`
	}
	b, err := os.ReadFile(filepath.Join(out, "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &sum)
	if sum.Condition != "counter-edit" || sum.Applied != 1 || sum.Delivered != 1 || sum.Instance == "" {
		t.Errorf("session.json: %s", b)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "pricing.py")); !strings.Contains(string(got), userLine) {
		t.Errorf("the Counter-Edit is not in the workspace:\n%s", got)
	}
}

// TestInPlaceInterrupted: SIGTERM to `swetouch acp` in place (the editor
// stopping it) reaches the agent, and the session still ends its files:
// the trajectory's last event says interrupted, session.json is written,
// and the relay exits with the agent's status.
func TestInPlaceInterrupted(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ws := sessiontest.Workspace(t, "../../examples/tasks/py-discount")
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "acp", "--out", out, "--root", ws, "--", "sh", "-c", "echo ready; exec sleep 60")
	in, _ := cmd.StdinPipe()
	defer in.Close()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// the agent's first line came through the relay: the relay runs, its
	// signal handling with it
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("swetouch acp ended with %v, want the agent's 143", err)
	}
	traj, _ := os.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(traj)), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `"kind":"session"`) || !strings.Contains(last, `"note":"interrupted"`) {
		t.Errorf("the trajectory ends with %s", last)
	}
	if sum, err := os.ReadFile(filepath.Join(out, "session.json")); err != nil || !strings.Contains(string(sum), `"agent_exit": 143`) {
		t.Errorf("session.json: %s %v", sum, err)
	}
}

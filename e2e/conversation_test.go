package e2e_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/run"

	"github.com/coder/acp-go-sdk"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user/conversation"
)

// runConversation runs `swetouch run` on an example conversation with the
// command after --, and returns its result.
func runConversation(t *testing.T, name string, env []string, args ...string) (*result.Run, string) {
	t.Helper()
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	dir, _ := filepath.Abs(filepath.Join(examplesDir, "conversations", name))
	cmd := exec.Command(filepath.Join(bin, "swetouch"), append([]string{"run", "--task", dir, "--out", out}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, got)
	}
	res, err := result.Read(filepath.Join(out, result.File))
	if err != nil {
		t.Fatal(err)
	}
	if res.Conversation == nil {
		t.Fatalf("result.json has no turns:\n%s", got)
	}
	return res, out
}

// scripted is the scripted agent's command line on a conversation plan.
func scripted(t *testing.T, name, behaviour string) []string {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := filepath.Abs(filepath.Join(examplesDir, "agents", name+".json"))
	return []string{"--", filepath.Join(bin, "swetouch"), "agent", "script", "--plan", plan, "--behaviour", behaviour,
		"--session", "{session}", "--message", "{instruction}"}
}

// TestScriptedConversations: both scripted agents hold every example
// conversation to its end through swetouch run, sandboxed as runs are: a
// careful agent asks first and is answered from the pool, a naive one
// fixes part, hears what still fails, and fixes the rest; the cascade's
// second issue is raised only once the first passes. The turns, the
// resolving turn and the weighted turns are what the runs did.
func TestScriptedConversations(t *testing.T) {
	testsupport.Slow(t)
	cases := []struct {
		task, behaviour string
		resolved        int
		weighted        float64
		items           [][]string // the pool items of each turn's opening message
	}{
		{"talk-discount", "careful", 2, 1.5, [][]string{{}, {"f1"}}},
		{"talk-discount", "naive", 3, 3, [][]string{{}, {"s4", "c1"}, {"s3", "c2"}}},
		{"talk-slugify", "careful", 2, 1.5, [][]string{{}, {"f1"}}},
		{"talk-slugify", "naive", 2, 2, [][]string{{}, {"s4"}}},
		{"talk-cart", "careful", 3, 2.5, [][]string{{}, {"f1"}, {}}},
		{"talk-cart", "naive", 3, 2.5, [][]string{{}, {}, {"s4"}}},
	}
	for _, c := range cases {
		t.Run(c.task+"/"+c.behaviour, func(t *testing.T) {
			t.Parallel()
			res, _ := runConversation(t, c.task, nil, scripted(t, c.task, c.behaviour)...)
			if res.Resolved == nil || !*res.Resolved || res.ResolvedTurn == nil || *res.ResolvedTurn != c.resolved || res.WeightedTurns != c.weighted {
				t.Fatalf("resolved %v at turn %v, weighted %v; want turn %d, %v (%s)\n%+v", res.Resolved, res.ResolvedTurn, res.WeightedTurns, c.resolved, c.weighted, res.Reason, res.Turns)
			}
			if len(res.Turns) != c.resolved {
				t.Fatalf("%d turns recorded, want %d", len(res.Turns), c.resolved)
			}
			for i, turn := range res.Turns {
				if !slices.Equal(turn.Items, c.items[i]) {
					t.Errorf("turn %d: items %v, want %v (%q)", turn.Turn, turn.Items, c.items[i], turn.UserMessage)
				}
				if turn.AgentReply == "" {
					t.Errorf("turn %d: no reply recorded", turn.Turn)
				}
				if want := "ongoing"; i < len(res.Turns)-1 && turn.Verdict != want {
					t.Errorf("turn %d: verdict %s, want %s", turn.Turn, turn.Verdict, want)
				}
			}
			if res.Applied != 0 || res.Delivered != 0 {
				t.Errorf("a conversation without records counted %d interventions, %d messages delivered", res.Applied, res.Delivered)
			}
			pkg := loadPackage(t, c.task)
			if res.Turns[0].UserMessage != pkg.Opening {
				t.Errorf("turn 1 opened with %q, want the package's opening", res.Turns[0].UserMessage)
			}
			if c.task == "talk-cart" {
				// the second issue is raised by the turn after the one
				// that fixed the first, and never before
				raised := slices.IndexFunc(res.Turns, func(tr result.Turn) bool { return tr.UserMessage == pkg.Phases[1].Opening })
				if raised < 1 || res.Turns[raised-1].Phase != "p1" || res.Turns[raised].Phase != "p2" || res.Turns[raised-1].Tests["test_quantity"] != "pass" {
					t.Errorf("the cascade's second issue was raised at turn %d: %+v", raised+1, res.Turns)
				}
			}
			traced(t, pkg, res.Turns)
		})
	}
}

func loadPackage(t *testing.T, name string) *conversation.Package {
	t.Helper()
	tk, err := task.Load(filepath.Join(examplesDir, "conversations", name))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := conversation.LoadTask(tk, nil)
	if err != nil || ct == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ct.Package
}

// traced checks that every sentence the user said in a run is one of
// the pool items that turn lists, a phase's opening, or the renderer's
// own connecting words: nothing outside the pool was ever said.
func traced(t *testing.T, pkg *conversation.Package, turns []result.Turn) {
	t.Helper()
	for n, turn := range turns {
		rest := turn.UserMessage
		if rest == pkg.Opening || slices.ContainsFunc(pkg.Phases, func(p conversation.Phase) bool { return p.Opening == rest }) {
			continue
		}
		var said []conversation.Item
		for _, id := range turn.Items {
			i := slices.IndexFunc(pkg.Pool, func(it conversation.Item) bool { return it.ID == id })
			if i < 0 {
				t.Fatalf("turn %d: item %s is not in the pool", turn.Turn, id)
			}
			said = append(said, pkg.Pool[i])
		}
		sel := conversation.Selection{Items: said, Unknown: make([]string, turn.Unknown)}
		if n > 0 {
			sel.Edited = turns[n-1].UserEdits
		}
		for _, part := range conversation.Render(turn.Persona, sel) {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, part.Text); !ok {
				t.Fatalf("turn %d: %q is not made of the items %v it names", turn.Turn, turn.UserMessage, turn.Items)
			}
			rest = strings.TrimPrefix(rest, " ")
		}
		if strings.TrimSpace(rest) != "" {
			t.Errorf("turn %d: %q said beyond its items", turn.Turn, rest)
		}
	}
}

// TestAgentConversations: each agent, unmodified and sandboxed, holds
// talk-discount over three turns with the scripted model server. It asks
// a question and ends its turn; the user's answer is the next turn's
// prompt, given to the same session (Claude Code --resume, codex exec
// resume, Gemini CLI --resume, opencode run --session): turn 2's first
// request carries turn 1's history and the answer; turn 3's the user's
// report that out-of-range percents are still accepted; the task is
// resolved at turn 3. Claude Code works with its own Read and Edit, the
// others through their shells.
func TestAgentConversations(t *testing.T) {
	testsupport.Slow(t)
	for _, c := range []struct{ agent, script string }{
		{"claude", filepath.Join(examplesDir, "agents", "claude", "talk-discount.script.json")},
		{"codex", filepath.Join(examplesDir, "agents", "talk-discount.script.json")},
		{"gemini", filepath.Join(examplesDir, "agents", "talk-discount.script.json")},
		{"opencode", filepath.Join(examplesDir, "agents", "talk-discount.script.json")},
	} {
		t.Run(c.agent, func(t *testing.T) {
			p, _, err := agents.Find(c.agent)
			if err != nil {
				testsupport.Missing(t, testsupport.Agents, "%s is not installed: %v", c.agent, err)
			}
			t.Parallel()
			s, err := modelserver.LoadScript(c.script)
			if err != nil {
				t.Fatal(err)
			}
			srv := modelserver.NewServer(s, nil)
			ts := httptest.NewServer(srv)
			defer ts.Close()
			res, out := runConversation(t, "talk-discount", []string{"IS_SANDBOX=1"}, "--agent", p.Name, "--model-url", ts.URL)
			resumed(t, srv, res, out)
		})
	}
}

// resumed checks a three-turn conversation held by one resumed session.
func resumed(t *testing.T, srv *modelserver.Server, res *result.Run, out string) {
	t.Helper()
	if res.ResolvedTurn == nil || *res.ResolvedTurn != 3 || len(res.Turns) != 3 {
		log, _ := os.ReadFile(filepath.Join(out, "agent.log"))
		t.Fatalf("resolved at turn %v after %d turns (%s): %+v\n%s", res.ResolvedTurn, len(res.Turns), res.Reason, res.Turns, log)
	}
	if !strings.Contains(res.Turns[0].AgentReply, "Which inputs give a wrong price") {
		t.Errorf("turn 1's reply: %q", res.Turns[0].AgentReply)
	}
	// each turn's first request the script answered (not an agent's side
	// request, a title or a classifier): the history of the turns before
	// it, and the user's message that opened it
	first := map[int]string{}
	for _, e := range srv.Exchanges() {
		if e.Turn < 0 {
			continue
		}
		body := string(e.Request)
		for n, msg := range []string{res.Turns[1].UserMessage, res.Turns[2].UserMessage} {
			if _, seen := first[n+2]; !seen && strings.Contains(body, jsonEscaped(msg)) {
				first[n+2] = body
			}
		}
	}
	for n := 2; n <= 3; n++ {
		body, ok := first[n]
		switch {
		case !ok:
			t.Errorf("turn %d's message never reached the model: %q", n, res.Turns[n-1].UserMessage)
		case !strings.Contains(body, "Which inputs give a wrong price") || !strings.Contains(body, "_swetouch_1_0_0"):
			t.Errorf("turn %d's request does not carry turn 1 (the session was not resumed)", n)
		}
	}
	if body := first[3]; body != "" && !strings.Contains(body, jsonEscaped(res.Turns[1].UserMessage)) {
		t.Errorf("turn 3's request does not carry turn 2's message")
	}
	if srv.Conversations() != 1 {
		t.Errorf("%d conversations with the model, want the one resumed", srv.Conversations())
	}
}

// jsonEscaped is s as a JSON string holds it.
func jsonEscaped(s string) string {
	return strings.NewReplacer(`"`, `\"`).Replace(s)
}

// TestACPConversation: an ACP agent (Gemini CLI in --acp mode and Claude
// Code through its ACP adapter, unmodified) behind `swetouch acp
// --conversation` in place, with an editor from the Go ACP SDK that sends
// only the opening: the relay plays the user's later turns itself, each a
// session/prompt of its own on the same session, shown to the editor as a
// user message; the editor's prompt returns when the conversation ends,
// and session.json keeps the turns, resolved at turn 3.
func TestACPConversation(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ agent, adapter, script string }{
		{"gemini", "", filepath.Join(examplesDir, "agents", "talk-discount.script.json")},
		{"claude", "claude-agent-acp", filepath.Join(examplesDir, "agents", "claude", "talk-discount.script.json")},
	} {
		t.Run(c.agent, func(t *testing.T) {
			p, exe, err := agents.Find(c.agent)
			if err != nil {
				testsupport.Missing(t, testsupport.Agents, "%s is not installed: %v", c.agent, err)
			}
			command := []string{exe, "--acp", "--skip-trust", "-m", "gemini-2.5-pro"}
			if c.adapter != "" {
				if exe, err = agents.FindAgent(c.adapter); err != nil {
					testsupport.Missing(t, testsupport.Agents, "the ACP adapter is not installed: %v", err)
				}
				command = []string{exe}
			}
			t.Parallel()
			s, err := modelserver.LoadScript(c.script)
			if err != nil {
				t.Fatal(err)
			}
			srv := modelserver.NewServer(s, nil)
			ts := httptest.NewServer(srv)
			defer ts.Close()
			tk, _ := task.Load(filepath.Join(examplesDir, "conversations", "talk-discount"))
			ws, err := run.Workspace(tk.Repo)
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(ws)
			out := t.TempDir()
			env := append(os.Environ(), p.Env(ts.URL, filepath.Join(bin, "swetouch"), t.TempDir())...)
			env = append(env, "HOME="+t.TempDir(), "CLAUDE_CONFIG_DIR="+t.TempDir(), "IS_SANDBOX=1")
			ed, stderr := prompt(t, ws, env, loadPackage(t, "talk-discount").Opening,
				append([]string{filepath.Join(bin, "swetouch"), "acp", "--conversation", tk.Dir, "--out", out, "--root", ws, "--"}, command...)...)
			var sum struct {
				result.Conversation
				Agent []string `json:"agent"`
			}
			if err := readJSON(filepath.Join(out, "session.json"), &sum); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			res := &result.Run{Conversation: &sum.Conversation}
			resumed(t, srv, res, out)
			ed.mu.Lock()
			defer ed.mu.Unlock()
			if len(ed.user) != 2 || ed.user[0] != res.Turns[1].UserMessage || ed.user[1] != res.Turns[2].UserMessage {
				t.Errorf("the editor was shown %q as the user's turns", ed.user)
			}
		})
	}
}

// prompt sends one prompt to the command (a relay in front of an agent)
// from a Go SDK editor; it returns when the agent's turn (here: the whole
// conversation) ends. The relay has ended when it returns.
func prompt(t *testing.T, ws string, env []string, text string, command ...string) (*acpEditor, string) {
	t.Helper()
	ed, conn, sess, stderr, done := editorSession(t, ws, env, command...)
	if _, err := conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sess, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}); err != nil {
		t.Fatalf("prompt: %v\n%s", err, stderr.String())
	}
	done()
	return ed, stderr.String()
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// TestSameUser: every agent on a task meets the same user: the chain is
// drawn once from the package's seed, before any agent runs, and two
// different agents (the scripted ones, which take different turns) get
// the same persona chain and the same opening, stored with each result.
func TestSameUser(t *testing.T) {
	testsupport.Slow(t)
	pkg := loadPackage(t, "talk-cart")
	if pkg.Persona.Seed == nil {
		t.Fatal("talk-cart's chain should be drawn from its seed")
	}
	want := conversation.DefaultModel().Chain(*pkg.Persona.Seed, pkg.Budget)
	var runs []*result.Run
	for _, b := range []string{"naive", "careful"} {
		res, _ := runConversation(t, "talk-cart", nil, scripted(t, "talk-cart", b)...)
		runs = append(runs, res)
	}
	for i, res := range runs {
		if !slices.Equal(res.PersonaChain, want) || res.Turns[0].UserMessage != pkg.Opening {
			t.Errorf("agent %d met chain %v opening %q; want %v %q", i, res.PersonaChain, res.Turns[0].UserMessage, want, pkg.Opening)
		}
		for _, turn := range res.Turns {
			if turn.Persona != want[turn.Turn-1] {
				t.Errorf("agent %d turn %d spoke as %s, the chain says %s", i, turn.Turn, turn.Persona, want[turn.Turn-1])
			}
		}
	}
	if len(runs[0].Turns) == len(runs[1].Turns) && runs[0].Turns[1].UserMessage == runs[1].Turns[1].UserMessage {
		t.Errorf("the two agents took the same turns: the test shows nothing")
	}
}

// TestTalkAndTouch: a multi-turn task with a SWE-Touch record: the user
// both talks and touches the code. The Counter-Edit lands when the agent
// reads the region in turn 1 and its message is delivered there; the
// next turn's message says what the user did; the careful agent, which
// keeps the user's clamp, never resolves the task (its range check comes
// after the clamp), and the conversation runs to its budget.
func TestTalkAndTouch(t *testing.T) {
	testsupport.Slow(t)
	dir, _ := filepath.Abs(filepath.Join(examplesDir, "conversations", "talk-discount"))
	res, _ := runConversation(t, "talk-discount", nil, append([]string{"--records", filepath.Join(dir, "records.jsonl"), "--condition", "counter-edit"},
		scripted(t, "talk-discount", "careful")...)...)
	if res.Condition != "counter-edit" || res.Applied != 1 || res.Delivered != 1 {
		t.Fatalf("condition %s, applied %d, delivered %d", res.Condition, res.Applied, res.Delivered)
	}
	if !slices.Equal(res.Turns[0].UserEdits, []string{"pricing.py"}) {
		t.Errorf("turn 1's user edits: %v", res.Turns[0].UserEdits)
	}
	if !strings.HasPrefix(res.Turns[1].UserMessage, "I changed pricing.py myself while you worked.") {
		t.Errorf("turn 2's message does not say what the user did: %q", res.Turns[1].UserMessage)
	}
	if res.ResolvedTurn != nil || len(res.Turns) != 5 || *res.Resolved {
		t.Errorf("resolved at %v after %d turns (%v)", res.ResolvedTurn, len(res.Turns), *res.Resolved)
	}
	traced(t, loadPackage(t, "talk-discount"), res.Turns)
}

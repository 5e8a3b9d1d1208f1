package agents_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	_ "github.com/swetouch/swetouch/agents/scripted" // naive and careful register too
)

// TestContract runs every registered agent's contract: a launch gives a
// command line with the instruction in it once; the next turn (its own
// Turns, or the line protocol) resumes the session and keeps the
// instruction's place, leaving the first command line as it was; its
// readers take lines that are not theirs without a word; no two agents
// claim one shell tool with different arguments. A new agent is tested by being registered
// (toy_test.go registers one in a test).
func TestContract(t *testing.T) {
	names := agents.Names()
	for _, want := range []string{"careful", "claude", "codex", "gemini", "naive", "opencode", "toy"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not registered (have %s)", want, strings.Join(names, ", "))
		}
	}
	shells := map[string]agents.ShellTool{}
	owners := map[string]string{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			a, err := agents.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			inv, err := a.Start(agents.Launch{Bin: "/opt/" + name, ModelURL: "http://127.0.0.1:9", Swetouch: "/opt/swetouch",
				Scratch: t.TempDir(), Task: "py-discount", Plans: "/plans"})
			if err != nil {
				t.Fatal(err)
			}
			if inv.Name != name || len(inv.Argv) == 0 {
				t.Fatalf("invocation %+v", inv)
			}
			if a.Bin != "" && inv.Argv[0] != "/opt/"+name {
				t.Errorf("runs %q, not its binary", inv.Argv[0])
			}
			if n := count(inv.Argv, "{instruction}"); n != 1 {
				t.Errorf("the instruction is in its command line %d times: %q", n, inv.Argv)
			}
			turns := inv.Turns
			if turns == nil {
				turns = agents.LineTurns()
				inv.Argv = append(inv.Argv, "--session", "{session}") // the line protocol resumes by {session}
			}
			first := slices.Clone(inv.Argv)
			next := turns.Resume(inv.Argv, "SESSION-1")
			if !slices.Equal(first, inv.Argv) {
				t.Errorf("resuming changed the first turn's command line: %q", inv.Argv)
			}
			if !slices.ContainsFunc(next, func(s string) bool { return strings.Contains(s, "SESSION-1") }) || count(next, "{instruction}") != 1 {
				t.Errorf("next turn %q: no session, or not one instruction", next)
			}
			for _, line := range []string{"", "not json", `{"type":"unknown"}`, `{"swetouch_reply":"hi"}`, "Error: something else"} {
				if s := turns.Session([]byte(line)); s != "" && !strings.HasPrefix(line, `{"swetouch`) {
					t.Errorf("session %q read from %q", s, line)
				}
				if a.Unreached != nil && a.Unreached([]byte(line)) != "" {
					t.Errorf("unreached read from %q", line)
				}
				if a.Observe != nil && len(a.Observe("/ws", []byte(line))) != 0 {
					t.Errorf("events read from %q", line)
				}
			}
			for _, sh := range a.Shell {
				// a tool name two agents share must be answered alike:
				// the model server cannot tell which agent asks
				if other, ok := shells[sh.Name]; ok && !reflect.DeepEqual(other.Args("ls"), sh.Args("ls")) {
					t.Errorf("shell tool %s is %s's too, with other arguments", sh.Name, owners[sh.Name])
				}
				shells[sh.Name], owners[sh.Name] = sh, name
				if len(sh.Args("ls")) == 0 {
					t.Errorf("shell tool %s takes no command", sh.Name)
				}
			}
			if a.MCPConfig != nil && a.MCPConfig.Path("/home/u", func(string) string { return "" }) == "" {
				t.Error("an MCP configuration with no path")
			}
		})
	}
}

func count(argv []string, s string) int {
	n := 0
	for _, a := range argv {
		n += strings.Count(a, s)
	}
	return n
}

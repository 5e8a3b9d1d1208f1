package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMiniSWETurns: mini-swe-agent's session is its launch's trajectory
// once the CLI says it saved it (a wrapped line still starts so); its
// reply is the submission, else its last assistant text, and nothing from
// a trajectory that is a link out of the scratch folder; its next turn
// is the same command line through the entry, written with mini's own #!
// line.
func TestMiniSWETurns(t *testing.T) {
	scratch, bin := t.TempDir(), filepath.Join(t.TempDir(), "mini")
	os.WriteFile(bin, []byte("#!/opt/venv/bin/python3\nimport sys\n"), 0o755)
	p, err := Lookup("mini-swe-agent")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := p.Start(Launch{Bin: bin, ModelURL: "http://127.0.0.1:1", Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	turns := inv.Turns
	traj := filepath.Join(scratch, MiniSWETrajectory)
	if turns == nil || turns.Session([]byte("mini-swe-agent (step 2, $0.00):")) != "" || turns.Session([]byte("Saved trajectory to ")) != traj {
		t.Fatalf("the session is not the trajectory once saved")
	}
	saved := []byte("Saved trajectory to '" + traj + "'")
	for _, c := range []struct{ file, want string }{
		{`{"info": {"submission": ""}, "messages": [{"role": "assistant", "content": "first"}, {"role": "tool", "content": "x"},
		  {"role": "assistant", "content": [{"type": "text", "text": "Which inputs fail?"}]}, {"role": "exit", "content": ""}]}`, "Which inputs fail?"},
		{`{"info": {"submission": "diff --git a/x b/x\n"}, "messages": [{"role": "assistant", "content": "done"}]}`, "diff --git a/x b/x"},
		{`not json`, ""},
	} {
		os.WriteFile(traj, []byte(c.file), 0o644)
		if got := turns.Reply("so far", []byte("Exit:")); got != "so far" {
			t.Errorf("a line before the save changed the reply: %q", got)
		}
		if got := turns.Reply("", saved); got != c.want {
			t.Errorf("reply %q, want %q", got, c.want)
		}
	}
	// a trajectory the agent made a link out of its scratch folder
	secret := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(secret, []byte(`{"info": {"submission": "host secret"}}`), 0o644)
	os.Remove(traj)
	os.Symlink(secret, traj)
	if got := turns.Reply("", saved); got != "" {
		t.Errorf("read a link out of the scratch folder: %q", got)
	}
	first := slices.Clone(inv.Argv)
	next := turns.Resume(first, traj)
	entry := filepath.Join(scratch, MiniSWEContinue)
	if want := append([]string{entry, traj}, first[1:]...); !slices.Equal(next, want) {
		t.Errorf("next turn %q, want %q", next, want)
	}
	if !slices.Equal(first, inv.Argv) || first[0] != bin {
		t.Errorf("the first turn's command line changed: %q", first)
	}
	b, err := os.ReadFile(entry)
	if err != nil || !strings.HasPrefix(string(b), "#!/opt/venv/bin/python3\n") || !strings.Contains(string(b), "class ContinuingAgent(InteractiveAgent)") {
		t.Errorf("the entry: %v\n%.200s", err, b)
	}
	if st, err := os.Stat(entry); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("the entry is not executable: %v", err)
	}
	if !slices.Contains(inv.Visible, bin) {
		t.Errorf("its install is not shown to a next turn: %q", inv.Visible)
	}
}

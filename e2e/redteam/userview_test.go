package redteam

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
)

// TestProgressCannotDriveTheTerminal: swetouch run prints what the agent
// did on the user's terminal, and what it prints is the agent's text (a
// command, a file name). An agent whose commands and files carry escape
// sequences (clear the screen, set the window's title, move the cursor
// over the verdict) gets them shown as escapes, never sent; its own
// output, escapes and all, stays in agent.log; and the honest fix it also
// makes still resolves.
func TestProgressCannotDriveTheTerminal(t *testing.T) {
	f := newFixture(t)
	// real escape bytes in the commands the shim records (each a bash -c
	// of the agent's), in a file's name, and in what the agent prints
	agent := "bash -c 'printf \"\x1b[2J\x1b]0;pwned\x07\x1b[1A resolved=true\\n\"'\n" +
		"bash -c 'touch \"x\x1b[2Jy.txt\"'\n" +
		"python3 -c '" + fix + "'\n"
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--task", f.task, "--records", f.records, "--condition", "vanilla",
		"--out", f.out, "--", "bash", "-c", agent)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out.String())
	}
	res, err := result.Read(filepath.Join(f.out, result.File))
	if err != nil {
		t.Fatal(err)
	}
	if res.Sandbox != sandbox.Bwrap || resolved(*res) != "true" {
		t.Errorf("sandbox %s, resolved %s: want the honest fix resolved, sandboxed\n%s", res.Sandbox, resolved(*res), out.String())
	}
	if bytes.ContainsRune(out.Bytes(), 0x1b) || bytes.ContainsRune(out.Bytes(), 0x07) {
		t.Errorf("an escape sequence of the agent's reached the terminal:\n%q", out.String())
	}
	if !strings.Contains(out.String(), `\x1b[2J`) {
		t.Errorf("the agent's command is not shown, escaped:\n%s", out.String())
	}
	if log, err := os.ReadFile(filepath.Join(f.out, "agent.log")); err != nil || !bytes.Contains(log, []byte("\x1b[2J")) {
		t.Errorf("agent.log does not keep the agent's output as it was: %v\n%q", err, log)
	}
}

package persistent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
	"github.com/swetouch/swetouch/shim/persistent"
)

// TestSession: a persistent shell keeps its directory and variables
// between commands, returns each command's output and status, and reports
// each command to the hub.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	h, err := session.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := session.Dial(sessiontest.Listen(t, h))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := persistent.Start("/bin/bash", dir, os.Environ(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	steps := []struct {
		cmd, out string
		status   int
	}{
		{"cd sub && X=42", "", 0},
		{"echo $X; pwd | sed 's|.*/||'", "42\nsub\n", 0},
		{"sed -n 2p a.txt; printf 'no newline'", "two\nno newline", 0},
		{"cat <<'EOF'\nhere\ndoc\nEOF", "here\ndoc\n", 0},
		{"ls missing-file 2>/dev/null; false", "", 1},
		{"(exit 7)", "", 7},
	}
	ctx := context.Background()
	for _, s := range steps {
		out, status, err := p.Run(ctx, s.cmd)
		if err != nil {
			t.Fatalf("%q: %v", s.cmd, err)
		}
		if out != s.out || status != s.status {
			t.Errorf("%q: got %q %d, want %q %d", s.cmd, out, status, s.out, s.status)
		}
	}
	if _, _, err := p.Run(ctx, "echo 'unfinished"); err == nil {
		t.Error("an unfinished command was sent")
	}
	if got := h.Status().Steps; got != len(steps) {
		t.Errorf("hub saw %d commands, want %d", got, len(steps))
	}
}

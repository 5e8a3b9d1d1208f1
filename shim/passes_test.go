package shim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/shim"
)

// TestPassesThrough: on both paths, a shell within a recorded command
// (marked inside) and a command that runs swetouch itself by path (a
// hook) run, and the hub records no step for them; a plain command is
// one step.
func TestPassesThrough(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "swetouch")
	os.WriteFile(hook, []byte("#!/bin/sh\necho hook ran\n"), 0o755)
	for _, extra := range []string{"", goPath} {
		hub, env := startHub(t, dir)
		env = append(env, extra)
		for _, tc := range []struct {
			env    []string
			script string
		}{
			{append(env[:len(env):len(env)], shim.EnvInside+"=1"), "echo inside"},
			{env, "'" + hook + "' hook claude"},
		} {
			if res := runShell(t, filepath.Join(binDir, "bash"), tc.env, dir, tc.script, nil); res.status != "exit status 0" || len(res.stdout) == 0 {
				t.Errorf("%q %q: %s %q", extra, tc.script, res.status, res.stdout)
			}
		}
		if s := hub.Status(); s.Steps != 0 {
			t.Errorf("%q: %d steps recorded, want none", extra, s.Steps)
		}
		runShell(t, filepath.Join(binDir, "bash"), env, dir, "echo plain", nil)
		if s := hub.Status(); s.Steps != 1 {
			t.Errorf("%q: %d steps after a plain command, want 1", extra, s.Steps)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConditionNeedsRecord (issue 50): run under a condition that acts
// from a record, given none, refuses to start (exit 2, nothing written);
// before, the default counter-edit ran vanilla silently and an explicit
// one was refused only when its flag was set. The default without a
// record is vanilla, and says so.
func TestConditionNeedsRecord(t *testing.T) {
	task := filepath.Join("..", "..", "examples", "tasks", "py-discount")
	for _, cond := range []string{"counter-edit", "co-edit", "message-only", "code-only"} {
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		code := execute([]string{"run", "--task", task, "--condition", cond, "--out", out, "--", "/bin/true"}, nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--condition "+cond+" needs --records") {
			t.Errorf("--condition %s without --records: exit %d, %s", cond, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--condition %s without --records wrote %s", cond, out)
		}
	}
}

// TestDefaultConditionSaysVanilla: run without --condition and without
// --records runs vanilla and says so on its last line (before, its
// default was counter-edit, and it ran vanilla without a word).
func TestDefaultConditionSaysVanilla(t *testing.T) {
	task := filepath.Join("..", "..", "examples", "tasks", "py-discount")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := execute([]string{"run", "--task", task, "--out", out, "--", "/bin/true"}, nil, &stdout, &stderr)
	b, _ := os.ReadFile(filepath.Join(out, "result.json"))
	if code != 0 || !strings.Contains(stderr.String(), "condition=vanilla") || !strings.Contains(string(b), `"condition": "vanilla"`) {
		t.Errorf("exit %d\n%s\n%s", code, stderr.String(), b)
	}
}

// TestEvalWithoutLogin (issue 50): eval of a real agent with no endpoint
// and no login it can find refuses at once (exit 2, saying what it
// looked for), where every trial ran to "Not logged in"; a login file
// in its home, or a key, passes the check.
func TestEvalWithoutLogin(t *testing.T) {
	agentsDir := t.TempDir()
	bin := filepath.Join(agentsDir, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho '{\"type\":\"result\",\"result\":\"Not logged in\"}'\n"), 0o755)
	home := t.TempDir()
	t.Setenv("SWETOUCH_AGENTS", agentsDir)
	t.Setenv("HOME", home)
	t.Setenv("PATH", "/usr/bin:/bin")
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"} {
		t.Setenv(k, "")
	}
	tasks := filepath.Join("..", "..", "examples", "tasks")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := execute([]string{"eval", "--tasks", tasks, "--agent", "claude", "--conditions", "vanilla", "--out", out}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "no login of its own found (looked for "+filepath.Join(home, ".claude", ".credentials.json")) {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("eval began")
	}
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", ".credentials.json"), []byte("{}"), 0o600)
	if err := loggedIn("claude"); err != nil {
		t.Errorf("with a login file: %v", err)
	}
	os.Remove(filepath.Join(home, ".claude", ".credentials.json"))
	t.Setenv("ANTHROPIC_API_KEY", "k")
	if err := loggedIn("claude"); err != nil {
		t.Errorf("with a key: %v", err)
	}
}

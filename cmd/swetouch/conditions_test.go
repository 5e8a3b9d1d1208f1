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
		code := run([]string{"run", "--task", task, "--condition", cond, "--out", out, "--", "/bin/true"}, nil, &stdout, &stderr)
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
	code := run([]string{"run", "--task", task, "--out", out, "--", "/bin/true"}, nil, &stdout, &stderr)
	b, _ := os.ReadFile(filepath.Join(out, "result.json"))
	if code != 0 || !strings.Contains(stderr.String(), "condition=vanilla") || !strings.Contains(string(b), `"condition": "vanilla"`) {
		t.Errorf("exit %d\n%s\n%s", code, stderr.String(), b)
	}
}

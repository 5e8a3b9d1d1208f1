package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/result"
)

// TestUnreachableModelEndsAtOnce (issue 50): run --agent claude with a
// --model-url nothing listens on (a listener on 127.0.0.1:0, closed)
// probes it first and ends null with the reason, the agent never
// started; before, the agent ran and retried (181 s for Claude Code).
// The agent here is a stand-in that says it started.
func TestUnreachableModelEndsAtOnce(t *testing.T) {
	agentsDir := t.TempDir()
	bin := filepath.Join(agentsDir, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho the agent started\n"), 0o755)
	t.Setenv("SWETOUCH_AGENTS", agentsDir)
	t.Setenv("PATH", "/usr/bin:/bin")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := execute([]string{"run", "--task", filepath.Join("..", "..", "examples", "tasks", "py-discount"), "--agent", "claude", "--model-url", url, "--out", out}, nil, &stdout, &stderr)
	took := time.Since(start)
	res, err := result.Read(filepath.Join(out, result.File))
	if err != nil {
		t.Fatalf("exit %d, %v\n%s", code, err, stderr.String())
	}
	log, _ := os.ReadFile(filepath.Join(out, "agent.log"))
	if res.Resolved != nil || !strings.HasPrefix(res.Reason, "the agent never reached its model: the model endpoint "+url+" cannot be reached") ||
		!strings.Contains(res.Reason, "connection refused") || strings.Contains(string(log)+stdout.String(), "the agent started") {
		t.Errorf("exit %d, resolved %s, reason %q, agent.log %q", code, result.ShowResolved(res.Resolved), res.Reason, log)
	}
	if took > 10*time.Second {
		t.Errorf("it took %s", took)
	}
}

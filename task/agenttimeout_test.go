package task

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAgentTimeoutFromTask: Harbor's agent.timeout_sec and task.json's
// agent_timeout_sec are the agent's limit; none is 0 (the run's default).
func TestAgentTimeoutFromTask(t *testing.T) {
	dir := t.TempDir()
	harbor := filepath.Join(dir, "h")
	os.MkdirAll(filepath.Join(harbor, "repo"), 0o755)
	os.MkdirAll(filepath.Join(harbor, "tests"), 0o755)
	os.WriteFile(filepath.Join(harbor, "instruction.md"), []byte("fix it\n"), 0o644)
	os.WriteFile(filepath.Join(harbor, "tests", "test.sh"), []byte("exit 0\n"), 0o644)
	os.WriteFile(filepath.Join(harbor, "task.toml"), []byte("[agent]\ntimeout_sec = 90.5\n\n[verifier]\ntimeout_sec = 60\n"), 0o644)
	h, err := Load(harbor)
	if err != nil {
		t.Fatal(err)
	}
	if h.AgentTimeout != 90500*time.Millisecond || h.Timeout != time.Minute {
		t.Errorf("agent %s, verifier %s; want 1m30.5s and 1m", h.AgentTimeout, h.Timeout)
	}
	os.WriteFile(filepath.Join(harbor, "task.toml"), []byte("[agent]\ntimeout_sec = soon\n"), 0o644)
	if _, err := Load(harbor); err == nil {
		t.Errorf("a bad agent.timeout_sec loaded")
	}
	js := filepath.Join(dir, "task.json")
	os.WriteFile(js, []byte(`{"name": "j", "repo": "h/repo", "tests": "h/tests", "agent_timeout_sec": 5}`), 0o644)
	j, err := Load(js)
	if err != nil {
		t.Fatal(err)
	}
	if j.AgentTimeout != 5*time.Second {
		t.Errorf("task.json agent %s, want 5s", j.AgentTimeout)
	}
	os.WriteFile(js, []byte(`{"name": "j", "repo": "h/repo", "tests": "h/tests"}`), 0o644)
	if j, _ := Load(js); j.AgentTimeout != 0 {
		t.Errorf("no agent_timeout_sec: %s, want 0", j.AgentTimeout)
	}
}

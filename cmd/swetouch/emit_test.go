package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmitKeepsRunFlags: eval --emit k8s writes every run flag eval was
// given into each Job's command (issue 54: --no-sandbox was dropped),
// takes --schedule after, refuses --schedule fraction (its steps come
// from a paired run a Job does not wait for) and an unknown pod
// security, exit 2.
func TestEmitKeepsRunFlags(t *testing.T) {
	examples, _ := filepath.Abs(filepath.Join("..", "..", "examples"))
	emit := func(extra ...string) (int, string, string) {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"eval", "--tasks", filepath.Join(examples, "tasks"), "--agent", "naive", "--out", out,
			"--emit", "k8s", "--image", "reg/{task}:base", "--swetouch-image", "reg/swetouch:v1", "--pvc", "data"}, extra...)
		code := execute(args, nil, &stdout, &stderr)
		jobs, _ := os.ReadFile(filepath.Join(out, "jobs", "jobs.yaml"))
		return code, string(jobs), stderr.String()
	}
	code, jobs, stderr := emit("--no-sandbox", "--schedule", "after", "--after", "2", "--agent-timeout", "20m", "--concurrency", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"--no-sandbox=true"`, `"--schedule=after"`, `"--after=2"`, `"--agent-timeout=20m0s"`, `"privileged": true`} {
		if !strings.Contains(jobs, want) {
			t.Errorf("the Jobs lack %s", want)
		}
	}
	if strings.Contains(jobs, "concurrency") {
		t.Error("eval's own --concurrency reached run's command")
	}
	if strings.Contains(jobs, `"--image=`) {
		t.Error("eval's --image (the Job's image) reached run's command, where it names a container trial's")
	}
	for _, bad := range [][]string{{"--schedule", "fraction"}, {"--pod-security", "lax"}} {
		if code, _, stderr := emit(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", bad, code, stderr)
		}
	}
}

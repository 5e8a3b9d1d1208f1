package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchmarkFlag: --benchmark swe-touch refuses the flags that depart
// from the paper (--match precise, --delivery retry) and an unknown
// benchmark or delivery, exit 2 naming the flag, before anything runs.
func TestBenchmarkFlag(t *testing.T) {
	examples, _ := filepath.Abs(filepath.Join("..", "..", "examples"))
	task := filepath.Join(examples, "tasks", "py-discount")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--task", task, "--records", filepath.Join(task, "records.jsonl"), "--benchmark", "swe-touch", "--match", "precise"}, "--match precise departs from the paper"},
		{[]string{"run", "--task", task, "--benchmark", "swe-touch", "--delivery", "retry"}, "--delivery retry departs from the paper"},
		{[]string{"run", "--task", task, "--benchmark", "userswe-ish"}, "--benchmark: want swe-touch"},
		{[]string{"run", "--task", task, "--delivery", "sometimes"}, "--delivery: unknown delivery"},
		{[]string{"eval", "--tasks", filepath.Join(examples, "tasks"), "--agent", "naive", "--benchmark", "swe-touch", "--delivery", "retry"}, "--delivery retry departs"},
	} {
		var stdout, stderr bytes.Buffer
		args := append(tt.args, "--out", t.TempDir())
		if tt.args[0] == "run" {
			args = append(args, "--", "true")
		}
		code := execute(args, nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Verdict is the verifier's answer: Resolved is nil when the verifier
// itself could not run (infrastructure error), with the reason.
type Verdict struct {
	Resolved *bool         `json:"resolved"`
	Reason   string        `json:"reason,omitempty"`
	Exit     int           `json:"exit"`
	Output   string        `json:"output,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Verify runs the task's tests/test.sh against a copy of workspace, with
// the tests copied beside it (TESTS_DIR), so neither the agent's workspace
// nor the task is touched. Exit 0 is resolved, exit 1 is not; anything
// else (a missing interpreter, a timeout, a crash) is an infrastructure
// error.
func Verify(ctx context.Context, t *Task, workspace string) Verdict {
	start := time.Now()
	v := verify(ctx, t, workspace)
	v.Duration = time.Since(start)
	return v
}

func verify(ctx context.Context, t *Task, workspace string) Verdict {
	tmp, err := os.MkdirTemp("", "swetouch-verify-")
	if err != nil {
		return Verdict{Reason: err.Error()}
	}
	defer os.RemoveAll(tmp)
	ws, tests := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "tests")
	if err := CopyTree(workspace, ws); err != nil {
		return Verdict{Reason: "copying the workspace: " + err.Error()}
	}
	if err := CopyTree(t.Tests, tests); err != nil {
		return Verdict{Reason: "copying the tests: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(tests, "test.sh"))
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "TESTS_DIR="+tests, "WORKSPACE="+ws)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	v := Verdict{Output: tail(out.String(), 4000)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		v.Reason = fmt.Sprintf("tests timed out after %s", t.Timeout)
	case err == nil:
		v.Resolved = ptr(true)
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		v.Exit, v.Resolved = 1, ptr(false)
	case errors.As(err, &ee):
		v.Exit, v.Reason = ee.ExitCode(), fmt.Sprintf("test.sh failed to run (exit %d)", ee.ExitCode())
	default:
		v.Reason = err.Error()
	}
	return v
}

func ptr[T any](v T) *T { return &v }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// CopyTree copies a directory tree (files, directories, symlinks, modes),
// skipping .git.
func CopyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() && info.Name() == ".git" && rel != "." {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		switch {
		case info.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, to)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, info.Mode().Perm())
		}
	})
}

package task

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/swetouch/swetouch/sandbox"
)

// RunSolution runs the task's reference solution (solution/solve.sh) in
// dir, with the verifier's isolation (WithSandbox; the other options do
// not apply): dir may hold what a generator agent wrote (the gate applies
// its Counter-Edit first), and the solution is a shell that runs Python
// and git there, so nothing of dir may run on the host. The solution's
// folder is copied beside dir and shown read-only; the task's folder is
// hidden. It returns what the solution printed.
func RunSolution(ctx context.Context, t *Task, dir string, opts ...VerifyOption) ([]byte, error) {
	if t.Solution == "" {
		return nil, fmt.Errorf("the task has no reference solution")
	}
	var vc verifier
	for _, o := range opts {
		o(&vc)
	}
	tmp, err := os.MkdirTemp("", "swetouch-solution-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	sol := filepath.Join(tmp, "solution")
	if _, err := CopyRegular(filepath.Dir(t.Solution), sol); err != nil {
		return nil, fmt.Errorf("copying the solution: %w", err)
	}
	cmd := exec.Command("/bin/bash", filepath.Join(sol, filepath.Base(t.Solution)))
	cmd.Dir = dir
	cmd.Env = os.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = processGroup()
	if vc.sandbox.Runner != nil {
		cmd.Env = append(append(cmd.Env, vc.sandbox.Env...), "TMPDIR=/tmp")
	}
	err = vc.runHidden(ctx, t, cmd, []string{dir}, []string{sol})
	return out.Bytes(), err
}

// startError is a process the verifier could not start: its sandbox, or
// the process itself (no verdict of anyone's).
type startError struct{ err error }

func (e *startError) Error() string { return "starting: " + e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// runHidden runs cmd (its process group, SysProcAttr set) to its end, in
// the verifier's sandbox when it has one: writable and readOnly shown,
// the task's folder hidden, cmd.Dir the working directory. ctx's end
// kills the whole group (what the agent's code started from it too).
func (vc verifier) runHidden(ctx context.Context, t *Task, cmd *exec.Cmd, writable, readOnly []string) error {
	var proc interface {
		Start() error
		Wait() error
	} = cmd
	if vc.sandbox.Runner != nil {
		spec := sandbox.Spec{Writable: writable, ReadOnly: append(append(readOnly, vc.sandbox.Visible...), sandbox.Tools(cmd.Env, nil)...),
			Hidden: []string{t.Dir}, Home: os.Getenv("HOME"), Dir: cmd.Dir}
		sb, err := vc.sandbox.Runner.Command(cmd, spec)
		if err != nil {
			return &startError{err}
		}
		proc, cmd = sb, sb.Cmd
	}
	if err := proc.Start(); err != nil {
		return &startError{err}
	}
	stop := context.AfterFunc(ctx, func() { killGroup(cmd) })
	err := proc.Wait()
	stop()
	return err
}

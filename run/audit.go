package run

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/audit"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

// auditRun is the mechanical audit of a verified run, from its files:
// the trajectory, the final diff, the task's evaluation data, and, for a
// test the agent edited, the verdict again with that test as shipped.
func auditRun(cfg Config, res *result.Run, ws string, diff []byte, talk Talker) *audit.Report {
	tr, err := trajectory.ReadFile(filepath.Join(cfg.Out, "trajectory.jsonl"))
	if err != nil {
		return nil
	}
	in := audit.Input{Events: tr.Events, Workspace: ws, FinalDiff: string(diff), Resolved: res.Resolved,
		Sandboxed:  cfg.Sandbox.Runner != nil,
		Evaluation: append([]string{cfg.Task.Dir, cfg.Out}, cfg.Hidden...), EvaluationNames: audit.EvaluationNames(cfg.Task.Repo, cfg.Task.Tests, filepath.Dir(cfg.Task.Solution)),
		Repo: cfg.Task.Repo}
	if res.Canaries != nil {
		in.Tampered = res.Canaries.Tampered
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil && real != ws {
		in.Workspace = real
	}
	if u, ok := talk.(interface{ Untraced() []string }); ok {
		in.OutsidePool = u.Untraced()
	}
	in.Reverify = func(restore []string) *bool {
		tmp, err := os.MkdirTemp("", "swetouch-audit-")
		if err != nil {
			return nil
		}
		defer os.RemoveAll(tmp)
		if _, err := task.CopyRegular(ws, tmp); err != nil {
			return nil
		}
		for _, p := range restore {
			if !filepath.IsLocal(p) {
				return nil
			}
			b, err := os.ReadFile(filepath.Join(cfg.Task.Repo, p))
			if errors.Is(err, fs.ErrNotExist) {
				// not the task's file: the work without it
				if os.RemoveAll(filepath.Join(tmp, p)) != nil {
					return nil
				}
				continue
			}
			if err != nil {
				return nil
			}
			os.MkdirAll(filepath.Dir(filepath.Join(tmp, p)), 0o755)
			if os.WriteFile(filepath.Join(tmp, p), b, 0o644) != nil {
				return nil
			}
		}
		return task.Verify(context.Background(), cfg.Task, tmp, verifyOptions(cfg)...).Resolved
	}
	return audit.Run(in)
}

// verifyOptions are the options of every verifier run of cfg's trial.
func verifyOptions(cfg Config) []task.VerifyOption {
	return append([]task.VerifyOption{task.WithSandbox(cfg.Sandbox)}, cfg.Verify...)
}

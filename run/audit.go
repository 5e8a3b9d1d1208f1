package run

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

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
		Evaluation: append([]string{cfg.Task.Dir, cfg.Out}, cfg.Hidden...), EvaluationNames: evaluationNames(cfg.Task),
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

// evaluationNames are the names of the task's test and solution files
// that its code does not hold: an agent naming one is reaching for the
// evaluation.
func evaluationNames(t *task.Task) []string {
	inRepo := map[string]bool{}
	filepath.WalkDir(t.Repo, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			inRepo[d.Name()] = true
		}
		return nil
	})
	var out []string
	for _, dir := range []string{t.Tests, filepath.Dir(t.Solution)} {
		if dir == "" || dir == "." {
			continue
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			// the runner's generic names (test.sh) would flag honest work
			if err == nil && !d.IsDir() && !inRepo[d.Name()] && d.Name() != "test.sh" && !slices.Contains(out, d.Name()) {
				out = append(out, d.Name())
			}
			return nil
		})
	}
	slices.Sort(out)
	return out
}

package run

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/internal/baseline"
	"github.com/swetouch/swetouch/sandbox"
)

// prepareWorkspace is the run's workspace and its start. Normally a fresh
// git-initialised copy of the task's repository, whose start is the
// repository itself. With cfg.InPlace, the directory named (a container's
// checkout, a harness's own workspace): nothing is copied into a new
// place and its git is left as it is; its start is copied to a folder of
// swetouch's before the agent runs (the final diff's base, the audit's
// and the verifier's "starting code"), and cfg.Task's Repo is set to that
// copy. owned are the temporary folders the run made, for a run killed
// outright; done removes them (and the workspace, for a copy not kept).
func prepareWorkspace(cfg *Config) (ws string, base *baseline.Tree, owned []string, done func(), err error) {
	if cfg.InPlace == "" {
		if ws, err = Workspace(cfg.Task.Repo); err != nil {
			return "", nil, nil, nil, err
		}
		// the task's repository is the start: the agent never sees it
		if base, err = baseline.Index(cfg.Task.Repo); err != nil {
			os.RemoveAll(ws)
			return "", nil, nil, nil, err
		}
		if cfg.KeepWorkspace {
			return ws, base, nil, func() {}, nil
		}
		return ws, base, []string{ws}, func() { os.RemoveAll(ws) }, nil
	}
	ws, err = filepath.Abs(cfg.InPlace)
	if err != nil {
		return "", nil, nil, nil, err
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return "", nil, nil, nil, fmt.Errorf("--in-place %s: not a directory", cfg.InPlace)
	}
	out, _ := filepath.Abs(cfg.Out)
	if sandbox.Under(out, []string{ws}) {
		return "", nil, nil, nil, fmt.Errorf("--out %s lies in the workspace %s: the run folder would be the agent's to change", cfg.Out, ws)
	}
	dir, err := os.MkdirTemp("", "swetouch-base-")
	if err != nil {
		return "", nil, nil, nil, err
	}
	if base, err = baseline.Take(ws, filepath.Join(dir, "tree")); err != nil {
		os.RemoveAll(dir)
		return "", nil, nil, nil, err
	}
	t := *cfg.Task
	t.Repo = base.Dir()
	cfg.Task = &t
	return ws, base, []string{dir}, func() { os.RemoveAll(dir) }, nil
}

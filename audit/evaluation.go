package audit

import (
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/swetouch/swetouch/event"
)

// Evaluation is what an agent must not use: the paths of the task's
// evaluation (its folder, tests, solution, records, the results) and the
// names of files only the evaluation holds. UserSWE's rule (U14): an
// agent that uses protected task material ends its session there.
type Evaluation struct {
	Paths, Names []string
}

// Reached are the evaluation's paths and names the agent's events among
// evs reach for (as the audit's evaluation_files flag finds them), its
// workspace being ws: none when it reached for nothing.
func (e Evaluation) Reached(evs []event.Event, ws string) []string {
	_, eval := reached(Input{Events: evs, Workspace: ws, Evaluation: e.Paths, EvaluationNames: e.Names})
	return eval
}

// EvaluationNames are the names of the files under dirs (the task's
// tests and solution) that the task's code (repo) does not hold, the
// runner's generic test.sh aside (it would flag honest work): an agent
// naming one is reaching for the evaluation.
func EvaluationNames(repo string, dirs ...string) []string {
	inRepo := map[string]bool{}
	if repo != "" {
		filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				inRepo[d.Name()] = true
			}
			return nil
		})
	}
	var out []string
	for _, dir := range dirs {
		if dir == "" || dir == "." {
			continue
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !inRepo[d.Name()] && d.Name() != "test.sh" && !slices.Contains(out, d.Name()) {
				out = append(out, d.Name())
			}
			return nil
		})
	}
	slices.Sort(out)
	return out
}

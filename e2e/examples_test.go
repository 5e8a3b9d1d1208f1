package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/task"
)

// TestExamplesValidated checks what each example's record claims, with the
// task's own verifier: the starting code fails, the reference solution
// resolves, the Counter-Edit alone fails, the Counter-Edit with the
// reference fails (the user's edit breaks a correct solution), and the
// reference survives the Co-Edit.
func TestExamplesValidated(t *testing.T) {
	testsupport.Slow(t)
	dirs, _ := filepath.Glob(filepath.Join(examplesDir, "tasks", "*", "task.toml"))
	if len(dirs) < 3 {
		t.Fatalf("want at least three example tasks, found %d", len(dirs))
	}
	for _, toml := range dirs {
		dir := filepath.Dir(toml)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tk, err := task.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := task.LoadRecords(filepath.Join(dir, "records.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			rec, err := task.Find(recs, tk.Name)
			if err != nil {
				t.Fatal(err)
			}
			ce := rec.CounterEdit.Interventions[0].Patch.Diff
			help := rec.Controls.HelpfulEdit.Patch.Diff
			for _, c := range []struct {
				name  string
				diffs []string
				solve bool
				want  bool
			}{
				{"starting code", nil, false, false},
				{"reference only", nil, true, true},
				{"user edit only", []string{ce}, false, false},
				{"user edit + reference", []string{ce}, true, false},
				{"co-edit + reference", []string{help}, true, true},
			} {
				ws, err := run.Workspace(tk.Repo)
				if err != nil {
					t.Fatal(err)
				}
				defer os.RemoveAll(ws)
				for _, d := range c.diffs {
					fds, err := patch.Parse(d)
					if err != nil {
						t.Fatal(err)
					}
					if rep, err := patch.Apply(patch.Dir(ws), fds); err != nil || !rep.Applied {
						t.Fatalf("%s: patch does not apply: %v %+v", c.name, err, rep)
					}
				}
				if c.solve {
					cmd := exec.Command("bash", tk.Solution)
					cmd.Dir = ws
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("%s: solve.sh: %v %s", c.name, err, out)
					}
				}
				v := task.Verify(context.Background(), tk, ws)
				if v.Resolved == nil || *v.Resolved != c.want {
					t.Errorf("%s: resolved %v (%s), want %v\n%s", c.name, v.Resolved, v.Reason, c.want, v.Output)
				}
			}
		})
	}
}

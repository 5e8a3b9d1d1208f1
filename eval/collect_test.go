package eval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

// TestKubeKilledJobIsNull: of two emitted trials, one runs as its Job's
// container would and one is killed as it starts (its pod evicted):
// Collect marks the killed one null for Interrupted and leaves the
// finished one; score counts it apart, as an infrastructure error; and
// emitting again against the same results emits exactly it.
func TestKubeKilledJobIsNull(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Abs(filepath.Join("..", "examples"))
	tk, err := task.Load(filepath.Join(examples, "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	volume := t.TempDir()
	for _, d := range []string{"tasks", "agents"} {
		if err := os.Symlink(filepath.Join(examples, d), filepath.Join(volume, d)); err != nil {
			t.Fatal(err)
		}
	}
	results := filepath.Join(volume, "results")
	cfg := Config{Tasks: []*task.Task{tk}, Agents: []Agent{{Name: "careful"}}, Conditions: []policy.Condition{policy.Vanilla}, Runs: 2, Out: results}
	ec := EmitConfig{Image: "reg/{task}:base", SwetouchImage: "reg/swetouch:dev", PVC: "data",
		Command: TrialArgs{Scripted: func(string) bool { return true }}.Command}
	jobs, err := EmitJobs(cfg, ec)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("%d jobs (%v), want 2", len(jobs), err)
	}
	jobsDir := filepath.Join(results, "jobs")
	if err := WriteJobs(jobsDir, jobs); err != nil {
		t.Fatal(err)
	}
	local := func(argv []string) *exec.Cmd {
		var out []string
		for _, a := range argv {
			switch {
			case a == EmitBinary:
				a = filepath.Join(bin, "swetouch")
			case strings.HasPrefix(a, EmitVolume+"/"):
				a = filepath.Join(volume, strings.TrimPrefix(a, EmitVolume+"/"))
			}
			out = append(out, a)
		}
		return exec.Command(out[0], out[1:]...)
	}
	if out, err := local(jobs[0].Command).CombinedOutput(); err != nil {
		t.Fatalf("job %s: %v\n%s", jobs[0].Name, err, out)
	}
	killed := local(jobs[1].Command)
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	killed.Process.Kill() // SIGKILL: nothing of swetouch's runs after it
	killed.Wait()

	listed, err := ReadJobs(filepath.Join(jobsDir, "jobs.jsonl"))
	if err != nil || len(listed) != 2 {
		t.Fatalf("jobs.jsonl: %d jobs, %v", len(listed), err)
	}
	marked, err := Collect(results, listed)
	if err != nil {
		t.Fatal(err)
	}
	if len(marked) != 1 || marked[0].Name != jobs[1].Name {
		t.Fatalf("marked %+v, want only the killed %s", marked, jobs[1].Name)
	}
	trials, err := score.Load(results)
	if err != nil || len(trials) != 2 {
		t.Fatalf("%d trials (%v), want 2", len(trials), err)
	}
	row := score.Summarize(trials)[0]
	if row.Trials != 2 || row.Unknown != 1 || row.Resolved != 1 {
		t.Errorf("row %+v: want the killed trial null, apart, the other resolved", row)
	}
	if errs := score.InfraErrors(trials); len(errs) != 1 || errs[0].Reason != Interrupted {
		t.Errorf("infrastructure errors %+v", errs)
	}
	again, err := EmitJobs(cfg, ec)
	if err != nil || len(again) != 1 || again[0].Name != jobs[1].Name {
		t.Errorf("emitted again: %+v (%v), want only %s", again, err, jobs[1].Name)
	}
	if again, _ := Collect(results, listed); len(again) != 0 {
		t.Errorf("a second collect marked %d", len(again))
	}
}

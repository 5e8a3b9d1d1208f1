// Package kube_test runs emitted Jobs on a real single-node cluster
// (scripts/k8s-local.sh) and holds their results to the same trials run
// locally.
package kube_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/eval"
	"github.com/swetouch/swetouch/result"
)

var examples, _ = filepath.Abs(filepath.Join("..", "..", "examples"))

// trialOf is what must be the same in a trial run by its Job and run
// locally: the verdict, the steps, the interventions and the messages.
type trialOf struct {
	Resolved      *bool
	Reason        string
	Steps         int
	Interventions string
	Applied       int
	Delivered     int
	Sandbox       string
}

func readTrials(t *testing.T, root string) map[string]trialOf {
	t.Helper()
	got := map[string]trialOf{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != result.File {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var r result.Run
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		iv, _ := json.Marshal(r.Interventions)
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		got[filepath.ToSlash(rel)] = trialOf{r.Resolved, r.Reason, r.Steps, string(iv), r.Applied, r.Delivered, r.Sandbox}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// emitArgs are eval's arguments emitting the trials of tasks for the
// cluster into out.
func emitArgs(tasks, out, ns string, extra ...string) []string {
	return append([]string{"eval", "--tasks", tasks, "--out", out, "--emit", "k8s", "--image", examplesImage,
		"--swetouch-image", swetouchImage, "--pvc", "swetouch-data", "--namespace", ns}, extra...)
}

func swetouch(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, "swetouch"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stage puts the task folders and the plans on the volume through the
// staging pod eval wrote, as docs/scale.md says: kubectl cp.
func stage(t *testing.T, c *cluster, ns, out, tasks, plans string) {
	t.Helper()
	c.kubectl(t, "apply", "-f", filepath.Join(out, "stage-pod.json"))
	c.kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "--timeout=3m", "pod/"+eval.StagePodName)
	c.kubectl(t, "cp", tasks, ns+"/"+eval.StagePodName+":"+eval.EmitTasks)
	c.kubectl(t, "cp", plans, ns+"/"+eval.StagePodName+":"+eval.EmitPlans)
}

// TestKubeExampleJobs: eval --emit k8s's Jobs for the example tasks (3
// tasks, the naive and the careful scripted agents, vanilla and
// Counter-Edit: 12 trials) run on a real cluster, sandboxed in their
// pods, each once (backoffLimit 0: one pod, never a retry), and every
// trial's result is the same trial's run locally: verdict, steps,
// interventions, messages delivered.
func TestKubeExampleJobs(t *testing.T) {
	c := needCluster(t)
	bin := t.TempDir()
	binaries(t, bin)
	images(t, c, bin)

	const ns = "swetouch-kube-examples"
	volume := t.TempDir()
	c.namespace(t, ns, "swetouch-data", volume)
	out := t.TempDir()
	tasks := filepath.Join(examples, "tasks")
	swetouch(t, bin, emitArgs(tasks, out, ns, "--agent", "naive", "--agent", "careful")...)
	jobs, err := eval.ReadJobs(filepath.Join(out, "jobs", "jobs.jsonl"))
	if err != nil || len(jobs) != 12 {
		t.Fatalf("%d jobs emitted (%v), want 12", len(jobs), err)
	}
	stage(t, c, ns, out, tasks, filepath.Join(examples, "agents"))
	c.kubectl(t, "apply", "-k", filepath.Join(out, "jobs"))
	start := time.Now()
	states := c.waitJobs(t, ns, len(jobs), 15*time.Minute)
	t.Logf("%d Jobs finished in %s", len(states), time.Since(start).Round(time.Second))
	for _, j := range jobs {
		s := states[j.Name]
		if s.finished() != "Complete" || s.Status.Succeeded+s.Status.Failed != 1 {
			t.Errorf("Job %s: %s, %d pods succeeded, %d failed; want Complete with one pod\n%s", j.Name, s.finished(),
				s.Status.Succeeded, s.Status.Failed, c.logs(ns, "job-name="+j.Name))
		}
	}
	// collect: the results off the volume, then k8s collect for any
	// trial without one
	results := filepath.Join(out, "results")
	c.kubectl(t, "cp", ns+"/"+eval.StagePodName+":"+eval.EmitResults, results)
	if got := swetouch(t, bin, "k8s", "collect", out, "--jobs", filepath.Join(out, "jobs", "jobs.jsonl")); strings.Contains(got, "null (no result)") {
		t.Errorf("k8s collect found trials without a result:\n%s", got)
	}
	_ = results

	local := t.TempDir()
	swetouch(t, bin, "eval", "--tasks", tasks, "--out", local, "--agent", "naive", "--agent", "careful")
	want, got := readTrials(t, local), readTrials(t, results)
	if len(want) != 12 {
		t.Fatalf("%d local trials, want 12", len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%s: no result from its Job", k)
		case !reflect.DeepEqual(g, w):
			t.Errorf("%s: the Job's result %+v, the local run's %+v", k, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d results from the Jobs, %d local", len(got), len(want))
	}
}

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

// stage puts folders of parent (tasks, agents) on the volume through the
// staging pod eval wrote, with docs/scale.md's one command: tar into
// kubectl exec (kubectl cp would nest a folder staged twice).
func stage(t *testing.T, c *cluster, ns, out, parent string, names ...string) {
	t.Helper()
	c.kubectl(t, "apply", "-f", filepath.Join(out, "stage-pod.json"))
	c.kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "--timeout=3m", "pod/"+eval.StagePodName)
	pipe(t, c, fmt.Sprintf(`tar -c -C %q %s | kubectl exec -i -n %s %s -- tar -x -C %s`,
		parent, strings.Join(names, " "), ns, eval.StagePodName, eval.EmitVolume))
}

// pipe runs a documented shell pipeline with kubectl on the cluster.
func pipe(t *testing.T, c *cluster, line string) {
	t.Helper()
	cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}

// collect copies the results off the volume into out (eval's --out, which
// holds jobs/) with docs/scale.md's one command, and runs swetouch k8s
// collect; it returns the trials collect marked null.
func collect(t *testing.T, c *cluster, bin, ns, out string) []string {
	t.Helper()
	pipe(t, c, fmt.Sprintf(`kubectl exec -n %s %s -- tar -c -C %s . | tar -x -C %q`, ns, eval.StagePodName, eval.EmitResults, out))
	var marked []string
	for line := range strings.Lines(swetouch(t, bin, "k8s", "collect", out)) {
		if rest, ok := strings.CutPrefix(line, "null (no result): "); ok {
			marked = append(marked, strings.TrimSpace(rest))
		}
	}
	return marked
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
	stage(t, c, ns, out, examples, "tasks", "agents")
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
	// collect: the results off the volume into eval's --out, then k8s
	// collect for any trial without one
	if got := collect(t, c, bin, ns, out); len(got) != 0 {
		t.Errorf("k8s collect found trials without a result: %v", got)
	}

	local := t.TempDir()
	swetouch(t, bin, "eval", "--tasks", tasks, "--out", local, "--agent", "naive", "--agent", "careful")
	want, got := readTrials(t, local), readTrials(t, out)
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
		default:
			t.Logf("%s: resolved %v, %d steps, %d applied, %d delivered: the same in the Job and here", k, *g.Resolved, g.Steps, g.Applied, g.Delivered)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d results from the Jobs, %d local", len(got), len(want))
	}
}

// TestKubeKilledJob: a trial's pod killed mid-trial (its agent still
// working) fails its Job without a second pod (backoffLimit 0), leaves no
// verdict, and swetouch k8s collect makes it null, never false; its
// sibling's Job completes resolved; eval --emit against the same folder
// emits the killed trial alone again.
func TestKubeKilledJob(t *testing.T) {
	c := needCluster(t)
	bin := t.TempDir()
	binaries(t, bin)
	images(t, c, bin)

	// py-discount as it is, and a copy whose plan waits ten minutes, so
	// the kill lands while its agent works
	root := t.TempDir()
	tasks, plans := filepath.Join(root, "tasks"), filepath.Join(root, "agents")
	for _, d := range []string{tasks, plans} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(examples, "tasks", "py-discount")
	if out, err := exec.Command("cp", "-a", src, filepath.Join(tasks, "py-discount")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("cp", "-a", src, filepath.Join(tasks, "py-slow")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	toml, _ := os.ReadFile(filepath.Join(src, "task.toml"))
	os.WriteFile(filepath.Join(tasks, "py-slow", "task.toml"), []byte(strings.Replace(string(toml), `name = "py-discount"`, `name = "py-slow"`, 1)), 0o644)
	copyFile(t, filepath.Join(examples, "agents", "py-discount.json"), filepath.Join(plans, "py-discount.json"), 0o644)
	os.WriteFile(filepath.Join(plans, "py-slow.json"), []byte(`{"task": "py-slow", "steps": [{"why": "wait to be killed", "run": "sleep 600"}]}`), 0o644)

	const ns = "swetouch-kube-killed"
	c.namespace(t, ns, "swetouch-data", t.TempDir())
	out := t.TempDir()
	emit := emitArgs(tasks, out, ns, "--agent", "naive", "--conditions", "vanilla")
	swetouch(t, bin, emit...)
	jobs, err := eval.ReadJobs(filepath.Join(out, "jobs", "jobs.jsonl"))
	if err != nil || len(jobs) != 2 {
		t.Fatalf("%d jobs emitted (%v), want 2", len(jobs), err)
	}
	slow := jobs[0]
	if slow.Task != "py-slow" {
		slow = jobs[1]
	}
	stage(t, c, ns, out, root, "tasks", "agents")
	c.kubectl(t, "apply", "-k", filepath.Join(out, "jobs"))
	// the slow trial's container running (the init containers done): its
	// agent is in its ten minutes' wait
	c.kubectl(t, "wait", "-n", ns, "pod", "-l", "job-name="+slow.Name, "--for=jsonpath={.status.phase}=Running", "--timeout=5m")
	c.kubectl(t, "delete", "pod", "-n", ns, "-l", "job-name="+slow.Name, "--grace-period=1", "--wait=true")
	states := c.waitJobs(t, ns, 2, 10*time.Minute)
	for _, j := range jobs {
		s := states[j.Name]
		want := "Complete"
		if j.Name == slow.Name {
			want = "Failed"
		}
		if s.finished() != want || s.Status.Succeeded+s.Status.Failed != 1 {
			t.Errorf("Job %s (%s): %s with %d pods succeeded, %d failed; want %s with one pod", j.Name, j.Task, s.finished(), s.Status.Succeeded, s.Status.Failed, want)
		}
	}
	if pods := c.kubectl(t, "get", "pods", "-n", ns, "-l", "job-name="+slow.Name, "-o", "name"); strings.TrimSpace(pods) != "" {
		t.Errorf("the killed trial was tried again: %s", pods)
	}
	// the pod's SIGTERM reaches swetouch run, which writes the trial's
	// null itself; a kill without one (SIGKILL, the node lost) leaves
	// nothing, and k8s collect writes it
	switch marked := collect(t, c, bin, ns, out); {
	case len(marked) == 0:
		t.Logf("the killed trial wrote its own null result on SIGTERM")
	case len(marked) != 1 || !strings.HasPrefix(marked[0], slow.Name+" "):
		t.Errorf("k8s collect marked %v, want the killed %s alone, if any", marked, slow.Name)
	}
	got := readTrials(t, out)
	if r := got[slow.Results]; r.Resolved != nil || r.Reason != eval.Interrupted {
		t.Errorf("the killed trial: resolved %v, reason %q; want null, %s", r.Resolved, r.Reason, eval.Interrupted)
	}
	for _, j := range jobs {
		if r := got[j.Results]; j.Name != slow.Name && (r.Resolved == nil || !*r.Resolved) {
			t.Errorf("%s: resolved %v (%s), want true", j.Results, r.Resolved, r.Reason)
		}
	}
	swetouch(t, bin, emit...)
	again, err := eval.ReadJobs(filepath.Join(out, "jobs", "jobs.jsonl"))
	if err != nil || len(again) != 1 || again[0].Name != slow.Name {
		t.Errorf("eval --emit again: %+v (%v), want the killed %s alone", again, err, slow.Name)
	}
}

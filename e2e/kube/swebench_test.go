package kube_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/eval"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
)

// The SWE-bench dev instance the test runs, in its image as
// `swetouch images build --instances` names it.
const (
	devInstance  = "sympy__sympy-21847"
	devImage     = "localhost/swebench/sweb.eval.x86_64.{id}:latest"
	claudeImage  = "localhost/swetouch-k8s/claude-code:test"
	claudeScript = `{"turns": [
 {"calls": [{"name": "@shell", "args": {"command": "grep -n 'def itermonomials' sympy/polys/monomials.py"}}]},
 {"text": "I have looked at itermonomials."}
]}`
)

// modelServer starts swetouch model serve on addr with the script and
// returns its URL and its log of requests.
func modelServer(t *testing.T, bin, addr, script string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	sp, log := filepath.Join(dir, "script.json"), filepath.Join(dir, "model.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(filepath.Join(bin, "swetouch"), "model", "serve", "--script", sp, "--listen", addr, "--log", log)
	stdout, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(url), log
}

// claudeAgentImage is an image holding Claude Code's CLI (a native
// binary) at /agent/bin/claude, with busybox's cp for the init container
// that hands it to the trial's pod.
func claudeAgentImage(t *testing.T) {
	t.Helper()
	cli, err := agents.FindAgent("claude")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "%v", err)
	}
	real, err := filepath.EvalSymlinks(cli)
	if err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	copyFile(t, real, filepath.Join(d, "claude"), 0o755)
	podmanBuild(t, claudeImage, "FROM "+stageImage+"\nCOPY claude /agent/bin/claude\n", d)
}

// TestKubeClaudeSWEbench: a dev SWE-bench instance in its own image, real
// Claude Code shipped to the pod by --agent-image, its model scripted by a
// server of the test's that the pod reaches on the host's bridge address:
// the Job's result is the same trial's run locally in a container
// (swetouch run --runtime podman): verdict, steps, interventions.
func TestKubeClaudeSWEbench(t *testing.T) {
	c := needCluster(t)
	shared := devdata.Shared(t)
	bin := t.TempDir()
	binaries(t, bin)
	images(t, c, bin)
	claudeAgentImage(t)
	image := strings.ReplaceAll(devImage, "{id}", strings.ReplaceAll(devInstance, "__", "_1776_"))
	if !imageExists(image) {
		mirror := devdata.Mirror(t, "sympy/sympy")
		out, err := exec.Command(filepath.Join(bin, "swetouch"), "images", "build", "--repo", mirror,
			"--instances", filepath.Join(shared, "data", "swebench-dev", "instances.jsonl"), "--ids", devInstance).CombinedOutput()
		if err != nil {
			t.Fatalf("swetouch images build: %v\n%s", err, tailOf(out, 4000))
		}
	}
	c.load(t, claudeImage, image)

	root := t.TempDir()
	tasks := filepath.Join(root, "tasks")
	swetouch(t, bin, "tasks", "swebench", "--instances", filepath.Join(shared, "data", "swebench-dev", "instances.jsonl"),
		"--out", tasks, "--ids", devInstance, "--image", devImage)
	podURL, podLog := modelServer(t, bin, c.host+":0", claudeScript)

	const ns = "swetouch-kube-claude"
	c.namespace(t, ns, "swetouch-data", t.TempDir())
	out := t.TempDir()
	swetouch(t, bin, "eval", "--tasks", tasks, "--out", out, "--agent", "claude", "--conditions", "vanilla",
		"--model-url", podURL, "--model", "claude-sonnet-4-5", "--emit", "k8s", "--image", "{image}",
		"--agent-image", claudeImage, "--swetouch-image", swetouchImage, "--pvc", "swetouch-data", "--namespace", ns)
	jobs, err := eval.ReadJobs(filepath.Join(out, "jobs", "jobs.jsonl"))
	if err != nil || len(jobs) != 1 {
		t.Fatalf("%d jobs (%v), want 1", len(jobs), err)
	}
	stage(t, c, ns, out, root, "tasks")
	c.kubectl(t, "apply", "-k", filepath.Join(out, "jobs"))
	states := c.waitJobs(t, ns, 1, 20*time.Minute)
	if s := states[jobs[0].Name]; s.finished() != "Complete" || s.Status.Succeeded != 1 {
		t.Fatalf("Job %s: %s\n%s\n%s", jobs[0].Name, s.finished(), c.logs(ns, "job-name="+jobs[0].Name), c.describe(ns))
	}
	if marked := collect(t, c, bin, ns, out); len(marked) != 0 {
		t.Fatalf("no result from %v", marked)
	}
	if b, _ := os.ReadFile(podLog); !strings.Contains(string(b), "itermonomials") {
		t.Errorf("the pod's Claude Code never reached the model:\n%.2000s", b)
	}

	// the same trial here, in a container of the instance's image
	localURL, _ := modelServer(t, bin, "127.0.0.1:0", claudeScript)
	local := t.TempDir()
	runOut := filepath.Join(local, filepath.FromSlash(jobs[0].Results))
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--runtime", "podman", "--task", filepath.Join(tasks, devInstance),
		"--out", runOut, "--agent-name", "claude", "--agent", "claude", "--model-url", localURL, "--model", "claude-sonnet-4-5")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the local run: %v\n%s", err, tailOf(b, 4000))
	}
	want, got := readTrials(t, local)[jobs[0].Results], readTrials(t, out)[jobs[0].Results]
	if want.Steps == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("the Job's result %+v, the local run's %+v", got, want)
	} else {
		t.Logf("%s: resolved %v, %d steps, sandbox %s: the same in the Job and in the local container", jobs[0].Results, *got.Resolved, got.Steps, got.Sandbox)
	}
}

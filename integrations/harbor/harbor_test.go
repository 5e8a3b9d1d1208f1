package harbor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
)

const (
	root     = "../.."
	agentRef = "swetouch_harbor.agent:SwetouchAgent"
	sympyID  = "sympy__sympy-21847"
	// the example task's image, built here from its repo/
	exampleImage = "localhost/swetouch-harbor/py-discount:latest"
)

// TestHarborAgentClass: the agent class against Harbor's installed-agent
// interface as the installed Harbor (0.26.0) defines it, by
// integrations/harbor/test_agent.py in Harbor's venv: a complete
// BaseInstalledAgent made by Harbor's own AgentFactory from its import
// path, unknown kwargs refused, the binary uploaded, the task uploaded
// without its solution, swetouch run's command line for a preset and for
// a command, and the verdict in Harbor's context.
func TestHarborAgentClass(t *testing.T) {
	venv := harborVenv(t)
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), "-m", "unittest", "-v", "test_agent")
	cmd.Env = append(os.Environ(), "LITELLM_LOCAL_MODEL_COST_MAP=True", "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("test_agent.py: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "\nOK") {
		t.Fatalf("test_agent.py ran no test:\n%s", out)
	}
	t.Logf("%s", out)
}

// TestHarborRunsTwoTasks: Harbor itself (its docker environment, compose
// v2, a dockerd of the test's own) runs two tasks through the installed
// agent: the example task py-discount and the SWE-bench dev task
// sympy__sympy-21847, each in an image built here, the scripted careful
// agent wrapped by swetouch run --in-place /testbed in Harbor's container.
// Each trial has swetouch's result (resolved, in agent/swetouch) and
// Harbor's reward (1, in verifier/reward.txt); a third trial runs the
// example under the Counter-Edit condition (the edit applied, its message
// delivered, still resolved by both); and swetouch score reads both
// verdicts of all three and finds them agreeing.
func TestHarborRunsTwoTasks(t *testing.T) {
	testsupport.Slow(t)
	p := findPrereqs(t)
	shared := devdata.Shared(t)
	instances := filepath.Join(shared, "data", "swebench-dev", "instances.jsonl")
	if _, err := os.Stat(instances); err != nil {
		testsupport.Missing(t, testsupport.Corpus, "no SWE-bench dev rows: %v", err)
	}
	mirror := devdata.Mirror(t, "sympy/sympy")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()

	tmp := t.TempDir()
	bin := staticBinaries(t, ctx, filepath.Join(tmp, "bin"))
	swetouch := filepath.Join(bin, "swetouch")
	env := []string{"DOCKER_HOST=" + startDockerd(t)}

	// the images, built here (no registry): the example's from a git
	// repository of its repo/, the dev task's from the sympy mirror
	repo := exampleRepo(t, ctx, filepath.Join(tmp, "py-discount-repo"))
	commit := strings.TrimSpace(command(t, ctx, nil, repo, "git", "rev-parse", "HEAD"))
	command(t, ctx, env, tmp, swetouch, "images", "build", "--runtime", "docker", "--quiet",
		"--repo", repo, "--commit", commit, "--tag", exampleImage)
	command(t, ctx, env, tmp, swetouch, "images", "build", "--runtime", "docker", "--quiet",
		"--repo", mirror, "--instances", instances, "--ids", sympyID)

	// the two tasks as Harbor task directories, and the scripted agent's
	// plan for each
	dataset, plans := filepath.Join(tmp, "dataset"), filepath.Join(tmp, "plans")
	exampleTask(t, filepath.Join(dataset, "py-discount"))
	command(t, ctx, nil, tmp, swetouch, "tasks", "swebench", "--instances", instances, "--ids", sympyID, "--out", dataset)
	writePlans(t, plans, filepath.Join(dataset, sympyID))

	integration, _ := filepath.Abs(".")
	jobs := filepath.Join(tmp, "jobs")
	harborEnv := append(env, "PYTHONPATH="+integration, "LITELLM_LOCAL_MODEL_COST_MAP=True")
	start := time.Now()
	out := command(t, ctx, harborEnv, tmp, filepath.Join(p.venv, "bin", "harbor"), "run",
		"-p", dataset, "--agent", agentRef,
		"--ak", "swetouch_bin="+swetouch, "--ak", "preset=careful", "--ak", "plans="+plans,
		"--extra-docker-compose", filepath.Join(integration, "compose.bwrap.yaml"),
		"--max-retries", "0", "-n", "2", "-o", jobs, "--job-name", "two", "-y", "-q")
	t.Logf("harbor run: %s\n%s", time.Since(start).Round(time.Second), out)

	for _, task := range []string{"py-discount", sympyID} {
		trials, _ := filepath.Glob(filepath.Join(jobs, "two", task+"__*"))
		if len(trials) != 1 {
			t.Fatalf("%s: %d trial folders, want 1 (retries off): %v", task, len(trials), trials)
		}
		trial := trials[0]
		var res struct {
			Resolved *bool  `json:"resolved"`
			Reason   string `json:"reason"`
			Agent    string `json:"agent_name"`
			Steps    int    `json:"steps"`
		}
		readJSON(t, filepath.Join(trial, "agent", "swetouch", "result.json"), &res)
		reward, err := os.ReadFile(filepath.Join(trial, "verifier", "reward.txt"))
		if err != nil {
			t.Fatalf("%s: Harbor's reward: %v (trial: %s)", task, err, harborTrial(trial))
		}
		if res.Resolved == nil || !*res.Resolved || strings.TrimSpace(string(reward)) != "1" {
			t.Errorf("%s: swetouch resolved=%v (%s), Harbor's reward %q: want both resolved\n%s\n%s", task, show(res.Resolved), res.Reason,
				reward, harborTrial(trial), agentLog(trial))
		}
		if res.Agent != "careful" || res.Steps == 0 {
			t.Errorf("%s: agent %q, %d steps: want careful's steps, through the shim", task, res.Agent, res.Steps)
		}
		var h struct {
			Exception any `json:"exception_info"`
		}
		readJSON(t, filepath.Join(trial, "result.json"), &h)
		if h.Exception != nil {
			t.Errorf("%s: Harbor recorded an exception: %v", task, h.Exception)
		}
	}

	// the tests swetouch verifies with sit in the container, unseen by
	// the sandboxed agent
	if out := stepOutput(t, filepath.Join(sympyTrial(t, jobs), "agent", "swetouch", "trajectory.jsonl"), "ls /installed-agent/"); strings.Count(out, "No such file or directory") != 2 {
		t.Errorf("the agent looking for swetouch's copy of the tests saw:\n%s", out)
	}

	// the Counter-Edit condition in Harbor's container: the record's
	// edit lands in /testbed, its message reaches the agent, which
	// reconciles; both verifiers still pass it
	records, _ := filepath.Abs(filepath.Join(root, "examples", "tasks", "py-discount", "records.jsonl"))
	command(t, ctx, harborEnv, tmp, filepath.Join(p.venv, "bin", "harbor"), "run",
		"-p", dataset, "-i", "py-discount", "--agent", agentRef,
		"--ak", "swetouch_bin="+swetouch, "--ak", "preset=careful", "--ak", "plans="+plans,
		"--ak", "records="+records, "--ak", "condition=counter-edit",
		"--extra-docker-compose", filepath.Join(integration, "compose.bwrap.yaml"),
		"--max-retries", "0", "-o", jobs, "--job-name", "ce", "-y", "-q")
	ce, _ := filepath.Glob(filepath.Join(jobs, "ce", "py-discount__*"))
	if len(ce) != 1 {
		t.Fatalf("counter-edit: %d trial folders, want 1", len(ce))
	}
	var cr struct {
		Resolved  *bool  `json:"resolved"`
		Condition string `json:"condition"`
		Applied   int    `json:"interventions_applied"`
		Delivered int    `json:"messages_delivered"`
	}
	readJSON(t, filepath.Join(ce[0], "agent", "swetouch", "result.json"), &cr)
	reward, _ := os.ReadFile(filepath.Join(ce[0], "verifier", "reward.txt"))
	if cr.Condition != "counter-edit" || cr.Applied != 1 || cr.Delivered != 1 || cr.Resolved == nil || !*cr.Resolved || strings.TrimSpace(string(reward)) != "1" {
		t.Errorf("counter-edit: %+v resolved=%s, Harbor's reward %q: want the edit applied, its message delivered, both resolved\n%s", cr, show(cr.Resolved), reward, agentLog(ce[0]))
	}

	// score reads both verdicts, and not Harbor's own result.json files
	scored := command(t, ctx, nil, tmp, swetouch, "score", jobs)
	if !strings.Contains(scored, "Harbor's reward beside swetouch's verdict: 3 trials, 3 agree, 0 disagree") {
		t.Errorf("score:\n%s", scored)
	}
	t.Logf("score:\n%s", scored)
}

// stepOutput is the output of the agent's step whose command starts with
// prefix, in a trajectory.
func stepOutput(t *testing.T, path, prefix string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		var ev struct {
			Actor   string `json:"actor"`
			Command string `json:"command"`
			Output  struct {
				Text string `json:"text"`
			} `json:"output"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Actor == "agent" && strings.HasPrefix(ev.Command, prefix) {
			return ev.Output.Text
		}
	}
	t.Fatalf("%s: no agent step running %s…", path, prefix)
	return ""
}

func sympyTrial(t *testing.T, jobs string) string {
	t.Helper()
	trials, _ := filepath.Glob(filepath.Join(jobs, "two", sympyID+"__*"))
	if len(trials) != 1 {
		t.Fatalf("%d trials of %s", len(trials), sympyID)
	}
	return trials[0]
}

// staticBinaries builds swetouch and swetouch-shim without cgo into dir:
// they run in any task image, whatever its C library.
func staticBinaries(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	for _, name := range []string{"swetouch", "swetouch-shim"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	return dir
}

// exampleRepo is a git repository of the example task's repo/, one commit.
func exampleRepo(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "examples", "tasks", "py-discount", "repo"))); err != nil {
		t.Fatal(err)
	}
	git := []string{"-c", "user.name=swetouch", "-c", "user.email=swetouch@localhost", "-c", "init.defaultBranch=main"}
	command(t, ctx, nil, dir, "git", append(git, "init", "-q")...)
	command(t, ctx, nil, dir, "git", append(git, "add", "-A")...)
	command(t, ctx, nil, dir, "git", append(git, "commit", "-q", "-m", "base")...)
	return dir
}

// exampleHarborTest is the example's test where Harbor runs it: in the
// image's /testbed, its reward written for Harbor's verifier; under
// swetouch's own verifier in the copy WORKSPACE names (else here).
const exampleHarborTest = `#!/bin/bash
tests="${TESTS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
ws="${WORKSPACE:-/testbed}"
[ -n "${WORKSPACE:-}" ] || [ -d "$ws" ] || ws=$PWD
cd "$ws" || exit 1
TESTS_DIR="$tests" bash "$tests/example.sh"
code=$?
if [ -d /logs/verifier ]; then
  [ "$code" -eq 0 ] && echo 1 >/logs/verifier/reward.txt || echo 0 >/logs/verifier/reward.txt
fi
exit "$code"
`

// exampleTask writes py-discount as a Harbor task directory: its code in
// the image built here, its test wrapped to write Harbor's reward.
func exampleTask(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join(root, "examples", "tasks", "py-discount")
	files := map[string]string{
		"task.toml": "version = \"1.0\"\n\n[metadata]\nname = \"py-discount\"\n\n[verifier]\ntimeout_sec = 120\n\n" +
			"[agent]\ntimeout_sec = 600\n\n[environment]\ndocker_image = \"" + exampleImage + "\"\nworkdir = \"/testbed\"\n",
		"tests/test.sh": exampleHarborTest,
	}
	for to, from := range map[string]string{"instruction.md": "instruction.md", "tests/example.sh": "tests/test.sh", "tests/test_hidden.py": "tests/test_hidden.py"} {
		b, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		files[to] = string(b)
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// writePlans writes the careful agent's plans: the example's own, and
// for the dev task one step applying its gold patch.
func writePlans(t *testing.T, dir, sympyTask string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "examples", "agents", "py-discount.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "py-discount.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile(filepath.Join(sympyTask, "solution", "patch.diff"))
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := json.MarshalIndent(map[string]any{
		"task": sympyID,
		"steps": []map[string]string{
			{"why": "read the function", "run": "grep -n 'def itermonomials' -A5 sympy/polys/monomials.py"},
			{"why": "look for the tests", "run": "ls /installed-agent/swetouch/tasks/" + sympyID + "/tests 2>&1; cat /installed-agent/swetouch/tasks/" + sympyID + "/tests/test.patch 2>&1 | head -3"},
			{"why": "apply the fix", "run": "git -c safe.directory='*' apply <<'SWETOUCH_PATCH'\n" + string(patch) + "SWETOUCH_PATCH"},
		},
	}, "", " ")
	if err := os.WriteFile(filepath.Join(dir, sympyID+".json"), plan, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, harborTrial(filepath.Dir(filepath.Dir(filepath.Dir(path)))))
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// harborTrial is what Harbor said of a trial: its exception and the
// end of its log.
func harborTrial(trial string) string {
	var b strings.Builder
	for _, name := range []string{"exception.txt", "trial.log"} {
		if s := tail(filepath.Join(trial, name), 40); s != "" {
			b.WriteString("--- " + name + "\n" + s)
		}
	}
	return b.String()
}

func agentLog(trial string) string {
	return "--- swetouch run's output\n" + tail(filepath.Join(trial, "agent", "swetouch.log"), 40) +
		"--- agent.log\n" + tail(filepath.Join(trial, "agent", "swetouch", "agent.log"), 40)
}

func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func show(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}

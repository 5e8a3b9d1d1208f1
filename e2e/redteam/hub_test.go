package redteam

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/trajectory"

	"golang.org/x/sys/unix"

	"github.com/swetouch/swetouch/result"
)

// hubFlood is an agent that opens many connections to the hub's socket and
// streams megabytes down each without a newline, keeping them open, and
// asks the hub's status on one more; then it says it is ready on the
// FIFO $1, waits for a byte on $2 (opened first, read and write, so the
// test's write never waits for it), and fixes the task honestly.
const hubFlood = `import os, socket, sys
go = os.open(sys.argv[2], os.O_RDWR)
blob = b"x" * (16 << 20)
held = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["SWETOUCH_SOCKET"])
    held.append(s)
    try:
        s.sendall(b'{"op":"record","event":{"kind":"traffic","note":"' + blob)
        print("stream", i, "sent 16 MiB")
    except OSError as e:
        print("stream", i, "cut:", e.strerror)
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["SWETOUCH_SOCKET"])
try:
    s.sendall(b'{"op":"status"}\n')
except OSError as e:
    print("status ask:", e.strerror)
try:
    print("status:", s.makefile().readline().strip() or "(nothing)")
except OSError as e:
    print("status: (nothing:", e.strerror + ")")
with open(sys.argv[1], "w") as ready:
    ready.write("flooded\n")
os.read(go, 1)
` + fix

// TestHubCannotBeExhausted: connections the hub does not admit hold
// nothing of swetouch's memory, and a status asked on one reveals
// nothing; the honest fix after still resolves. swetouch's peak resident
// memory is read from /proc while the agent holds its connections (before
// admission at accept, sixteen 16 MiB streams took it past 500 MiB).
func TestHubCannotBeExhausted(t *testing.T) {
	f := newFixture(t)
	peak, out := hubRunHeld(t, f, hubFlood)
	t.Logf("swetouch's peak RSS with the agent's connections held: %d MiB", peak>>20)
	if peak > 64<<20 {
		t.Errorf("swetouch's peak RSS %d MiB with the agent's connections held, want under 64\n%s", peak>>20, out)
	}
	if n := strings.Count(out, "sent 16 MiB"); n > 0 {
		t.Errorf("%d of 16 streams went through whole\n%s", n, out)
	}
	status := ""
	for _, line := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(line, "status: "); ok {
			status = s
		}
	}
	// the refusal, sent at accept, or nothing once the hub has hung up
	if status == "" || strings.Contains(status, `"ok":true`) || strings.Contains(status, "interventions") {
		t.Errorf("status answered %q, want only the refusal\n%s", status, out)
	}
	res := hubResult(t, f.out)
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true: the honest fix after the flood\n%s", resolved(res), out)
	}
}

// hubPeakRSS is the most resident memory process pid has had (VmHWM).
func hubPeakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// hubResult is the run's result.json.
func hubResult(t *testing.T, out string) result.Run {
	t.Helper()
	var res result.Run
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("result.json: %v %s", err, b)
	}
	return res
}

// hubAwait waits until something is written to the FIFO ready (true) or
// process pid has exited (false), whichever is first. The FIFO is opened
// read and write, so neither open nor read waits on the agent's end.
func hubAwait(t *testing.T, ready string, pid int) bool {
	t.Helper()
	r, err := os.OpenFile(ready, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pfd)
	fds := []unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}, {Fd: int32(pfd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			break
		}
	}
	return fds[0].Revents&unix.POLLIN != 0
}

// TestSteeringIsRefusedAtAccept: a forged record, observe and begin, each
// on a connection of its own, are answered with the refusal alone (or
// nothing, the hub having hung up first), since the hub admits before it
// reads; none is recorded, the socket cannot be removed, and the honest
// fix after resolves, its native edit taken by the next command.
func TestSteeringIsRefusedAtAccept(t *testing.T) {
	f := newFixture(t)
	steer := `import json, os, socket, subprocess
for line in [
    {"op": "record", "event": {"kind": "verify", "actor": "harness", "note": "resolved=true"}},
    {"op": "observe", "event": {"kind": "intervention", "actor": "harness"}},
    {"op": "observe", "event": {"kind": "edit", "actor": "user", "scopes": [{"path": "pricing.py"}]}},
    {"op": "begin", "begin": {"command": "sleep 1000"}},
]:
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["SWETOUCH_SOCKET"])
    try:
        s.sendall((json.dumps(line) + "\n").encode())
    except OSError:
        pass
    try:
        print("hub:", s.makefile().readline().strip() or "(hung up)")
    except OSError as e:
        print("hub: (hung up:", e.strerror + ")")
try:
    os.remove(os.environ["SWETOUCH_SOCKET"])
except OSError as e:
    print("rm:", e.strerror)
` + fix + `
print(subprocess.run(["bash", "-c", "python3 -m unittest -q test_pricing 2>&1 | tail -1"], capture_output=True, text=True).stdout)
`
	res, out := f.run(t, "vanilla", "python3", "-c", steer)
	if n := strings.Count(out, "hub: "); n != 4 || strings.Contains(out, `"ok":true`) {
		t.Errorf("want 4 answers, each the refusal or a hang-up:\n%s", out)
	}
	if !strings.Contains(out, "rm: Read-only file system") {
		t.Errorf("the socket could be removed:\n%s", out)
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
	tr, err := trajectory.ReadFile(filepath.Join(f.out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var verifies, nativeEdit int
	for _, ev := range tr.Events {
		if ev.Kind == "verify" {
			verifies++
		}
		if ev.Kind == "edit" && ev.Note == "native edit" && ev.Actor == "agent" {
			nativeEdit++
		}
		if ev.Actor == "user" || ev.Command == "sleep 1000" {
			t.Errorf("a forged event was recorded: %+v", ev)
		}
	}
	if verifies != 1 || nativeEdit != 1 {
		t.Errorf("%d verify events (want the harness's one), %d native edits taken (want 1)", verifies, nativeEdit)
	}
}

// hubRunHeld runs agent (Python, given the FIFOs ready and go as its
// arguments) through swetouch run, vanilla, and returns swetouch's peak
// resident memory, read from /proc once the agent says it is ready (and
// waits), and all the run printed.
func hubRunHeld(t *testing.T, f fixture, agent string) (peak int64, printed string) {
	t.Helper()
	dir := t.TempDir()
	ready, goOn := filepath.Join(dir, "ready"), filepath.Join(dir, "go")
	for _, p := range []string{ready, goOn} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// --verbose: the agent's own output, which the tests read
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", f.task, "--records", f.records, "--condition", "vanilla",
		"--out", f.out, "--visible", ready, "--visible", goOn, "--", "python3", "-c", agent, ready, goOn)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !hubAwait(t, ready, cmd.Process.Pid) {
		cmd.Wait()
		t.Fatalf("swetouch run exited before its agent said it was ready:\n%s", out.String())
	}
	peak = hubPeakRSS(t, cmd.Process.Pid)
	if w, err := os.OpenFile(goOn, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Write([]byte{1})
		w.Close()
	} else {
		t.Errorf("the agent's FIFO: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out.String())
	}
	return peak, out.String()
}

// hubLongCommands runs a thousand commands through the shim, each with
// a 120 KB argument, near the most a shim is sent (an argument's limit is
// 128 KiB), then says it is ready.
const hubLongCommands = `import os, subprocess, sys
go = os.open(sys.argv[2], os.O_RDWR)
arg = "x" * 120000
for i in range(1000):
    subprocess.run(["bash", "-c", ": " + arg + str(i)], check=True)
with open(sys.argv[1], "w") as ready:
    ready.write("ran\n")
os.read(go, 1)
` + fix

// TestHubHoldsNoLongCommands: commands the agent sends through the shim,
// an admitted client, are recorded whole in the trajectory, and held in
// swetouch's memory only as their first KiBs: a thousand 120 KB commands
// leave its peak resident memory under 64 MiB.
func TestHubHoldsNoLongCommands(t *testing.T) {
	testsupport.Slow(t)
	f := newFixture(t)
	peak, out := hubRunHeld(t, f, hubLongCommands)
	t.Logf("swetouch's peak RSS after 1,000 commands of 120 KB: %d MiB", peak>>20)
	if peak > 64<<20 {
		t.Errorf("swetouch's peak RSS %d MiB after 1,000 commands of 120 KB, want under 64\n%s", peak>>20, out)
	}
	if res := hubResult(t, f.out); resolved(res) != "true" || res.Steps < 1000 {
		t.Errorf("resolved %s after %d steps, want true after 1,000 and more\n%s", resolved(res), res.Steps, out)
	}
}

package redteam

// What the sandbox shows (issue 49, class 4): the attacks here look for
// evaluation data through what is still mounted or inherited.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// runWith is f.run with the swetouch process started by start's changes
// to its command (descriptors it inherits).
func (f fixture) runWith(t *testing.T, start func(*exec.Cmd), condition string, agent ...string) (result.Run, string) {
	t.Helper()
	args := append([]string{"run", "--task", f.task, "--records", f.records, "--condition", condition, "--out", f.out, "--"}, agent...)
	cmd := exec.Command(filepath.Join(bin, "swetouch"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out.String())
	}
	var res result.Run
	b, err := os.ReadFile(filepath.Join(f.out, "result.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("result.json: %v %s", err, b)
	}
	return res, out.String()
}

// TestInheritedDescriptorShowsNothing: swetouch is started holding the
// task folder open on descriptors 3 to 9, none close-on-exec (a careless
// CI runner); the agent walks /proc/self/fd for it and finds none, and
// its honest fix still resolves.
func TestInheritedDescriptorShowsNothing(t *testing.T) {
	f := newFixture(t)
	script := `for d in /proc/self/fd/*; do n=${d##*/}; [ "$n" -gt 2 ] || continue
  echo "fd $n: $(readlink $d)"; cat $d/solution/solve.sh $d/../py-discount/records.jsonl 2>/dev/null
done
python3 -c '` + fix + `'`
	res, out := f.runWith(t, func(cmd *exec.Cmd) {
		for range 7 {
			d, err := os.Open(f.task)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			cmd.ExtraFiles = append(cmd.ExtraFiles, d)
		}
	}, "vanilla", "bash", "-c", script)
	for _, leak := range []string{f.task, "Reference solution", "clamped"} {
		if strings.Contains(out, leak) {
			t.Errorf("the agent reached %q through an inherited descriptor:\n%s", leak, out)
		}
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}

// steal is an agent that runs a command through the shim and, while the
// shim holds its admitted hub connection, tries to ptrace the shim, read
// its memory and take its descriptors (pidfd_getfd); then it fixes the
// code honestly. Each try prints its errno, or "stolen".
const steal = `import ctypes, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *a):
    r = libc.syscall(*a)
    e = ctypes.get_errno()
    print(name, "stolen" if r >= 0 else "errno %d" % e, flush=True)
    return r
for env in ({}, {"SWETOUCH_SHIM_GO": "1"}):
    p = subprocess.Popen(["bash", "-c", "echo ready; read x"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ, **env))
    p.stdout.readline()
    if call("ptrace", 101, 0x4206, p.pid, 0, 0) == 0:  # PTRACE_SEIZE
        # let it go again (interrupt, wait for the stop, detach)
        libc.syscall(101, 0x4207, p.pid, 0, 0)
        os.waitpid(p.pid, 0x40000000)
        libc.syscall(101, 17, p.pid, 0, 0)
    buf = ctypes.create_string_buffer(8)
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
    call("process_vm_readv", 310, p.pid, iov, 1, iov, 1, 0)
    pidfd = libc.syscall(434, p.pid, 0)
    print("pidfd_open", pidfd >= 0)
    for fd in range(3, 10):
        call("pidfd_getfd %d" % fd, 438, pidfd, fd, 0)
    p.communicate(b"go\n")
` + fix

// TestCannotTakeTheShimsConnection: the shim is non-dumpable (both its C
// fast path and its Go path), so the agent, of the same uid, can neither
// ptrace it nor take the admitted connection it holds to the hub.
func TestCannotTakeTheShimsConnection(t *testing.T) {
	f := newFixture(t)
	res, out := f.run(t, "vanilla", "python3", "-c", steal)
	if strings.Contains(out, "stolen") || strings.Count(out, "errno 1\n") != 2*9 || strings.Count(out, "pidfd_open True") != 2 {
		t.Errorf("the shim was reached:\n%s", out)
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}

// TestExamplesNotInTheBinary: the swetouch a sandbox shows (for hooks,
// relays, GOCACHEPROG and the scripted agents) holds no examples: asked
// to extract them inside, it has nothing to give, and the honest fix
// still resolves. The examples' archive is the built-in tasks' hidden
// tests, solutions and records.
func TestExamplesNotInTheBinary(t *testing.T) {
	f := newFixture(t)
	swetouch := filepath.Join(bin, "swetouch")
	script := `"$1" examples extract /tmp/ex; cat /tmp/ex/tasks/*/tests/* /tmp/ex/tasks/*/solution/* 2>/dev/null | head -c 300
"$1" --version
python3 -c '` + fix + `'`
	res, out := f.run(t, "vanilla", "bash", "-c", script, "bash", swetouch)
	for _, leak := range []string{"Reference solution", "test_out_of_range", "empty Pop = "} {
		if strings.Contains(out, leak) {
			t.Errorf("the agent extracted %q from swetouch:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, "swetouch ") {
		t.Errorf("the swetouch shown does not run:\n%s", out)
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}

// plantModule puts swetouch's module, as `go install …@latest` leaves it,
// in the module cache mod: its examples with a hidden test.
func plantModule(t *testing.T, mod string) {
	t.Helper()
	for _, dir := range []string{
		filepath.Join(mod, "github.com", "swetouch", "swetouch@v0.1.0", "examples", "tasks", "go-stack", "tests"),
		filepath.Join(mod, "cache", "download", "github.com", "swetouch", "swetouch", "@v"),
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join("..", "examples", "tasks", "go-stack", "tests", "hidden_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "hidden_test.go"), b, 0o644)
	}
}

// TestModuleCacheShowsNoExamples: swetouch installed with go install
// leaves its module, examples and all, in the module cache. A Go
// workspace on PATH (~/go/bin) is shown by that folder alone, and a
// module cache a sandbox shows anyway (here one under a --visible folder)
// has swetouch's module masked; the agent greps all it can see outside
// the system folders for a hidden test's words, and still resolves.
func TestModuleCacheShowsNoExamples(t *testing.T) {
	f := newFixture(t)
	// not under /tmp, whose PATH entries no sandbox shows
	home, err := os.MkdirTemp("/var/tmp", "swetouch-redteam-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	gobin := filepath.Join(home, "go", "bin")
	os.MkdirAll(gobin, 0o755)
	os.WriteFile(filepath.Join(gobin, "tool"), []byte("#!/bin/sh\necho tool ran\n"), 0o755)
	plantModule(t, filepath.Join(home, "go", "pkg", "mod"))
	visible := t.TempDir()
	plantModule(t, filepath.Join(visible, "mod"))
	script := `tool
grep -rlas --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr --exclude-dir=etc --exclude-dir=opt --exclude-dir='lib*' --exclude-dir=bin --exclude-dir=sbin -e 'empty Pop = ' / | sed 's/^/found: /'
python3 -c '` + fix + `'`
	res, out := f.runWith(t, func(cmd *exec.Cmd) {
		cmd.Env = append(os.Environ(), "HOME="+home, "GOPATH=", "GOMODCACHE="+filepath.Join(visible, "mod"), "PATH="+gobin+":"+os.Getenv("PATH"))
		cmd.Args = append(cmd.Args[:2], append([]string{"--visible", visible}, cmd.Args[2:]...)...)
	}, "vanilla", "bash", "-c", script)
	if strings.Contains(out, "found: ") || strings.Contains(out, "empty Pop = ") {
		t.Errorf("a hidden test is in view:\n%s", out)
	}
	if !strings.Contains(out, "tool ran") {
		t.Errorf("the tool on PATH did not run:\n%s", out)
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}

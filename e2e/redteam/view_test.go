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

// runStarted is f.run with the swetouch process started by start's changes
// to its command (descriptors it inherits).
func (f fixture) runStarted(t *testing.T, start func(*exec.Cmd), condition string, agent ...string) (result.Run, string) {
	t.Helper()
	args := append([]string{"run", "--verbose", "--task", f.task, "--records", f.records, "--condition", condition, "--out", f.out, "--"}, agent...)
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
	res, out := f.runStarted(t, func(cmd *exec.Cmd) {
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
// relays and the scripted agents) holds no examples: asked to extract
// them inside, it has nothing to give; it still runs; and the honest fix
// still resolves. The examples' archive is the built-in tasks' hidden
// tests, solutions and records. (A command agent's swetouch carries no
// session token, so its hook is not heard: TestForgedHookRefused; the
// tokened scrubbed copy works as Claude Code's and Codex's hook in
// TestAgents.)
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
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "tasks", "go-stack", "tests", "hidden_test.go"))
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
	res, out := f.runStarted(t, func(cmd *exec.Cmd) {
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

// reach is an agent that tries to reach into processes it did not make
// dumpable-proof: its own child (ptrace, process_vm_readv), the
// sandbox's pid 1 (ptrace-stopping it kept a child working after the
// agent exited), and a nested user namespace in which to mount a client
// of its own over the shim's path; then it works honestly: python, git,
// bash job control and a Go build through the sandbox's build cache.
const reach = `import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *a):
    r = libc.syscall(*a)
    print(name, "made" if r >= 0 else "errno %d" % ctypes.get_errno(), flush=True)
    return r
child = subprocess.Popen(["sleep", "5"])
for pid in (child.pid, 1):
    call("ptrace %s" % ("child" if pid != 1 else "pid 1"), 101, 0x4206, pid, 0, 0)  # PTRACE_SEIZE
    buf = ctypes.create_string_buffer(8)
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
    call("process_vm_readv", 310, pid, iov, 1, iov, 1, 0)
    call("pidfd_getfd", 438, os.pidfd_open(pid), 0, 0)
child.kill(); child.wait()
r = subprocess.run(["unshare", "-U", "true"], capture_output=True)
print("nested namespace", "made" if r.returncode == 0 else "refused")
` + fix + `
print(subprocess.run(["bash", "-c", "git init -q /tmp/g && git -C /tmp/g -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && echo git ok; sleep 0.01 & wait $! && echo jobs ok"], capture_output=True, text=True).stdout)
m = "/tmp/m"
os.makedirs(m)
open(m + "/go.mod", "w").write("module m\n\ngo 1.22\n")
open(m + "/main.go", "w").write('package main\n\nfunc main() { println("go build ok") }\n')
r = subprocess.run(["go", "run", "."], cwd=m, capture_output=True, text=True)
print(r.stdout, r.stderr)
`

// TestNoPtraceNoNestedNamespaces: the seccomp filter refuses ptrace,
// process_vm_readv and pidfd_getfd on any process, bwrap refuses nested
// user namespaces, and an honest agent's tools still work.
func TestNoPtraceNoNestedNamespaces(t *testing.T) {
	f := newFixture(t)
	res, out := f.run(t, "vanilla", "python3", "-c", reach)
	if strings.Contains(out, " made") || strings.Count(out, "errno 1\n") != 6 {
		t.Errorf("the agent reached a process or made a namespace:\n%s", out)
	}
	want := []string{"git ok", "jobs ok"}
	if _, err := exec.LookPath("go"); err == nil {
		want = append(want, "go build ok")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("an honest tool failed (%q):\n%s", w, out)
		}
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}

// TestBuildCacheShowsNothing: the host's Go build cache holds the
// go-stack task's hidden test, compiled (its tests once ran outside a
// sandbox). The cache is served to sandboxed builds by action ID, not
// mounted: the agent greps all it sees outside the system folders for
// the hidden test's words and finds nothing, while its own Go build
// still takes the standard library from the host's cache (one package
// compiled, its own), and its honest fix resolves.
func TestBuildCacheShowsNothing(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	f := newFixture(t)
	// the hidden test, compiled on the host into its cache
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("cp", "-r", filepath.Join("..", "..", "examples", "tasks", "go-stack", "repo"), repo).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	b, _ := os.ReadFile(filepath.Join("..", "..", "examples", "tasks", "go-stack", "tests", "hidden_test.go"))
	os.WriteFile(filepath.Join(repo, "hidden_test.go"), b, 0o644)
	seed := exec.Command(gobin, "test", "-count=1", "-run", "^$", "./...")
	seed.Dir, seed.Env = repo, append(os.Environ(), "GOCACHEPROG=")
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("go test on the host: %v\n%s", err, out)
	}
	script := `grep -rlas --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr --exclude-dir=etc --exclude-dir=opt --exclude-dir='lib*' --exclude-dir=bin --exclude-dir=sbin -e 'empty Pop = ' / | sed 's/^/found: /'
mkdir /tmp/m && cd /tmp/m && printf 'module m\n\ngo 1.22\n' > go.mod && printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("built and ran") }\n' > main.go
echo "compiled: $(go build -x -o /tmp/m/out . 2>&1 | grep -c '/compile -o')"
/tmp/m/out
cd - >/dev/null
python3 -c '` + fix + `'`
	res, out := f.run(t, "vanilla", "bash", "-c", script)
	if strings.Contains(out, "found: ") || strings.Contains(out, "empty Pop = ") {
		t.Errorf("the compiled hidden test is in view:\n%s", out)
	}
	if !strings.Contains(out, "compiled: 1\n") || !strings.Contains(out, "built and ran") {
		t.Errorf("the sandboxed build did not take the standard library from the host's cache:\n%s", out)
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}

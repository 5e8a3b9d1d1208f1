package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// i386 makes i386's ptrace(PTRACE_TRACEME) through int 0x80, the call
// another architecture's numbers reach a filter with.
const i386 = `#include <stdio.h>
int main(void) {
	long r;
	__asm__ volatile ("int $0x80" : "=a"(r) : "a"(26L), "b"(0L), "c"(0L), "d"(0L), "S"(0L) : "memory");
	printf("i386 ptrace: %ld\n", r);
	return 0;
}
`

// probes are system calls a sandboxed process tries, each printing its
// errno (0: it was made).
const probes = `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *a):
    r = libc.syscall(*a)
    print(name, ctypes.get_errno() if r < 0 else 0)
    return r
call("ptrace", 101, 0, 0, 0, 0)  # PTRACE_TRACEME
pidfd = os.pidfd_open(os.getppid())
call("pidfd_getfd", 438, pidfd, 0, 0)
buf = ctypes.create_string_buffer(8)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
call("process_vm_readv", 310, os.getppid(), iov, 1, iov, 1, 0)
call("perf_event_open", 298, 0, 0, -1, -1, 0)
call("bpf", 321, 0, 0, 0)
call("userfaultfd", 323, 0)
call("keyctl", 250, 0, 0, 0)
call("io_uring_setup", 425, 1, 0)
`

// TestFilter: inside a sandbox the calls that reach into another process
// or the kernel's escape surface fail (EPERM; io_uring as missing,
// ENOSYS), a nested user namespace cannot be made, another
// architecture's calls are refused, and what an honest agent runs
// (python, git, bash job control) works.
func TestFilter(t *testing.T) {
	r := need(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the probes' numbers are x86_64's")
	}
	tools := t.TempDir()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(tools, "probes.py"), []byte(probes), 0o644)
	os.WriteFile(filepath.Join(tools, "i386.c"), []byte(i386), 0o644)
	var i386Probe string
	if out, err := exec.Command("gcc", "-static", "-O1", "-o", filepath.Join(tools, "i386"), filepath.Join(tools, "i386.c")).CombinedOutput(); err == nil {
		i386Probe = tools + "/i386"
	} else {
		t.Logf("no i386 probe: %v %s", err, out)
	}
	script := `python3 ` + tools + `/probes.py
unshare -U true && echo "nested userns: made" || echo "nested userns: refused"
` + i386Probe + `
git init -q . && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && echo git: ok
sleep 0.01 & wait $! && echo jobs: ok
python3 -c 'import subprocess; print("python:", subprocess.run(["true"]).returncode)'`
	out, err := run(t, r, Spec{Writable: []string{ws}, ReadOnly: []string{tools}, Dir: ws}, script)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{"ptrace 1\n", "pidfd_getfd 1\n", "process_vm_readv 1\n", "perf_event_open 1\n", "bpf 1\n", "userfaultfd 1\n",
		"keyctl 1\n", "io_uring_setup 38\n", "nested userns: refused", "git: ok", "jobs: ok", "python: 0"}
	if i386Probe != "" {
		want = append(want, "i386 ptrace: -1\n")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestFilterProgram(t *testing.T) {
	prog, err := Filter()
	if err != nil {
		t.Fatal(err)
	}
	if len(prog)%8 != 0 || len(prog)/8 > 4096 || len(prog) == 0 {
		t.Fatalf("%d bytes: not a sock_filter array the kernel takes", len(prog))
	}
}

package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// need skips the test, saying why, where bwrap cannot run.
func need(t *testing.T) *Runner {
	t.Helper()
	r := &Runner{}
	if err := r.Check(); err != nil {
		testsupport.Missing(t, testsupport.Bwrap, "no sandbox here: %v", err)
	}
	return r
}

// run runs script in bash inside spec's sandbox and returns its output.
func run(t *testing.T, r *Runner, spec Spec, script string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + spec.Home}
	s, err := r.Command(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	err = s.Wait()
	return out.String(), err
}

func TestSeesOnlyWhatItIsGiven(t *testing.T) {
	r := need(t)
	host := t.TempDir()
	ws, ro, secret := filepath.Join(host, "ws"), filepath.Join(host, "tools"), filepath.Join(host, "records.jsonl")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(ro, 0o755)
	os.WriteFile(filepath.Join(ro, "tool"), []byte("tool\n"), 0o644)
	os.WriteFile(secret, []byte("the answer\n"), 0o644)
	spec := Spec{Writable: []string{ws}, ReadOnly: []string{ro}, Home: "/root", Dir: ws}
	tests := []struct {
		name, script, want string
		fail               bool
	}{
		{"writes the workspace", "echo hi > f && cat f", "hi\n", false},
		{"reads what is read-only", "cat " + ro + "/tool", "tool\n", false},
		{"cannot write what is read-only", "echo x > " + ro + "/tool", "Read-only file system", true},
		{"does not see the rest of the host", "cat " + secret, "No such file or directory", true},
		{"sees only its own processes", "ls /proc | grep -c '^[0-9]'", "", false},
		{"has a fresh home", "ls -A /root | wc -l", "0\n", false},
		{"cannot write system directories", "touch /usr/x", "Read-only file system", true},
		{"has no capabilities", "grep CapEff /proc/self/status", "0000000000000000", false},
		// builtins only: a pipeline's own pipes would show in bash's table
		{"inherits none of bwrap's descriptors", "n=0; for f in 3 4 5 6; do [ -e /proc/$$/fd/$f ] && n=$((n+1)); done; echo open: $n", "open: 0", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, r, spec, tc.script)
			if (err != nil) != tc.fail {
				t.Fatalf("err = %v, want failure %v; output %q", err, tc.fail, out)
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("output %q, want it to hold %q", out, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "f")); string(b) != "hi\n" {
		t.Fatalf("the workspace write did not reach the host: %q", b)
	}
	// bash, ls, grep: a handful of processes, none of the host's
	out, _ := run(t, r, spec, "ls /proc | grep '^[0-9]' | wc -l")
	if n := strings.TrimSpace(out); n == "" || len(n) > 1 {
		t.Fatalf("the sandbox sees %s processes", n)
	}
}

func TestHiddenPaths(t *testing.T) {
	r := need(t)
	host := t.TempDir()
	ws := filepath.Join(host, "ws")
	task := filepath.Join(ws, "..", "task")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(task, 0o755)
	os.WriteFile(filepath.Join(task, "solution.sh"), []byte("the answer\n"), 0o644)
	os.WriteFile(filepath.Join(host, "records.jsonl"), []byte("the answer\n"), 0o644)

	// a bind inside a hidden path is refused before anything runs
	cmd := exec.Command("/bin/true")
	if _, err := r.Command(cmd, Spec{ReadOnly: []string{filepath.Join(task)}, Hidden: []string{task}}); err == nil || !strings.Contains(err.Error(), "must not see") {
		t.Fatalf("a bind of a hidden path: err = %v", err)
	}
	// a hidden path given relative is hidden all the same
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, task)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Command(exec.Command("/bin/true"), Spec{ReadOnly: []string{filepath.Join(task, "solution.sh")}, Hidden: []string{rel}}); err == nil || !strings.Contains(err.Error(), "must not see") {
		t.Fatalf("a bind inside a hidden path named relative: err = %v", err)
	}
	// a hidden path inside a bind is masked
	spec := Spec{Writable: []string{ws}, ReadOnly: []string{host}, Hidden: []string{task, filepath.Join(host, "records.jsonl")}, Dir: ws}
	out, err := run(t, r, spec, "ls "+filepath.Clean(task)+"; cat "+host+"/records.jsonl; echo end")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "answer") || strings.Contains(out, "solution") {
		t.Fatalf("a hidden path shows through its parent's bind: %q", out)
	}
}

func TestTreeEndsWithTheCommand(t *testing.T) {
	r := need(t)
	ws := t.TempDir()
	// a detached process that would outlive the command and write later
	out, err := run(t, r, Spec{Writable: []string{ws}, Dir: ws}, "setsid bash -c 'sleep 0.5; echo late > "+ws+"/late' </dev/null >/dev/null 2>&1 & echo started")
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("%v: %s", err, out)
	}
	// Wait returned: the namespace is empty, so nothing can write any more
	if pids, _ := filepath.Glob("/proc/[0-9]*"); len(pids) > 0 {
		for _, p := range pids {
			if b, _ := os.ReadFile(p + "/cmdline"); bytes.Contains(b, []byte(ws+"/late")) {
				t.Fatalf("a detached process outlived its sandbox: %s %q", p, b)
			}
		}
	}
}

func TestExitCodesAndSetupFailure(t *testing.T) {
	r := need(t)
	ws := t.TempDir()
	_, err := run(t, r, Spec{Writable: []string{ws}}, "exit 3")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit 3 came back as %v", err)
	}
	_, err = run(t, r, Spec{Writable: []string{ws}, Dir: "/nonexistent"}, "exit 0")
	var se *SetupError
	if !errors.As(err, &se) {
		t.Fatalf("a sandbox that could not be made: err = %v, want a SetupError", err)
	}
}

func TestUnavailable(t *testing.T) {
	r := &Runner{Bwrap: "/nonexistent/bwrap"}
	if err := r.Check(); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bubblewrap") {
		t.Fatalf("err = %v", err)
	}
	if _, err := r.Command(exec.Command("/bin/true"), Spec{}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
}

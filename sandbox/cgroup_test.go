package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// limited is a runner whose sandboxes get lim, skipping where no control
// group can be made here.
func limited(t *testing.T, lim Limits) *Runner {
	t.Helper()
	r := need(t)
	r.Limits = lim
	if _, err := ownCgroups(); err != nil {
		testsupport.Missing(t, testsupport.Cgroups, "no control groups here: %v", err)
	}
	return r
}

// forks is a python3 program that forks up to n sleepers with tag on
// their command lines and says how many it got.
func forks(n int, tag string) string {
	return fmt.Sprintf(`python3 -c '
import os
got = 0
for i in range(%d):
    try:
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "%s"])
        got += 1
    except OSError:
        break
print("forked", got)
'`, n, tag)
}

// TestLimits: a sandbox's processes share one pids and memory budget,
// whatever they do inside; what the limits refused is in its Usage, and
// nothing of it, nor its control group, is left after Wait. Without the
// control group the 200 forks and the 512 MiB pass (seen with Limits
// unset: forked 200, allocated).
func TestLimits(t *testing.T) {
	r := limited(t, Limits{Pids: 64, Memory: 256 << 20})
	ws := t.TempDir()
	tag := fmt.Sprintf("1003.%d", os.Getpid())
	script := forks(200, tag) + `
python3 -c 'b = b"x" * (512 << 20); print("allocated", len(b))'
echo "allocation exit $?"`
	out, err := run(t, r, Spec{Writable: []string{ws}, Dir: ws}, script)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got int
	fmt.Sscanf(out[strings.Index(out, "forked"):], "forked %d", &got)
	if got == 0 || got >= 64 {
		t.Errorf("forked %d, want fewer than the limit of 64\n%s", got, out)
	}
	if strings.Contains(out, "allocated 5") || !strings.Contains(out, "allocation exit 137") {
		t.Errorf("512 MiB passed a 256 MiB limit:\n%s", out)
	}
	if p := processWith("sleep " + tag); p != "" {
		t.Errorf("a sleeper outlived the sandbox: %s", p)
	}
	mounts, _ := ownCgroups()
	for _, m := range mounts {
		left, _ := os.ReadDir(m.dir)
		for _, e := range left {
			if strings.HasPrefix(e.Name(), fmt.Sprintf("swetouch-%d-", os.Getpid())) {
				t.Errorf("its control group %s/%s is left", m.dir, e.Name())
			}
		}
	}
}

// TestLimitsUsage: Usage says what the limits refused.
func TestLimitsUsage(t *testing.T) {
	r := limited(t, Limits{Pids: 32, Memory: 128 << 20})
	ws := t.TempDir()
	cmdOut, err := runSandboxed(t, r, Spec{Writable: []string{ws}, Dir: ws}, forks(100, fmt.Sprintf("1004.%d", os.Getpid()))+`
python3 -c 'b = b"x" * (256 << 20)'; true`)
	if err != nil {
		t.Fatalf("%v\n%s", err, cmdOut.out)
	}
	u := cmdOut.usage
	if u.Pids != 32 || u.Memory != 128<<20 || u.PidsRefused == 0 || u.OOMKills == 0 || u.MemoryPeak == 0 || u.Unlimited != "" {
		t.Errorf("usage %+v, want the limits, refused forks, an OOM kill and a peak", u)
	}
}

type sandboxed struct {
	out   string
	usage Usage
}

// runSandboxed is run, with the sandbox's Usage.
func runSandboxed(t *testing.T, r *Runner, spec Spec, script string) (sandboxed, error) {
	t.Helper()
	var out strings.Builder
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	s, err := r.Command(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	err = s.Wait()
	return sandboxed{out.String(), s.Usage()}, err
}

// TestLimitsUnavailable: where a control group cannot be made or set
// (here a limit the kernel refuses), the sandbox runs without one, its
// Usage says why, and the runner's Notice is told once.
func TestLimitsUnavailable(t *testing.T) {
	r := limited(t, Limits{Pids: 1 << 40})
	var told []string
	r.Notice = func(s string) { told = append(told, s) }
	ws := t.TempDir()
	for range 2 {
		got, err := runSandboxed(t, r, Spec{Writable: []string{ws}, Dir: ws}, "echo ran")
		if err != nil || got.out != "ran\n" {
			t.Fatalf("%v: %q", err, got.out)
		}
		if !strings.Contains(got.usage.Unlimited, "pids.max") {
			t.Errorf("usage %+v, want why there were no limits", got.usage)
		}
	}
	if len(told) != 1 {
		t.Errorf("told %d times, want once: %q", len(told), told)
	}
}

// TestRelayedAndLimited: a sandbox with both a relay and limits waits for
// both before its command starts, and has both.
func TestRelayedAndLimited(t *testing.T) {
	r := limited(t, Limits{Pids: 32})
	model, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	answer(t, model, "model")
	ws := t.TempDir()
	got, err := runSandboxed(t, r, Spec{Writable: []string{ws}, Dir: ws, Network: Network{Relay: []string{model.Addr().String()}}},
		fmt.Sprintf(`exec 7<>/dev/tcp/127.0.0.1/%d; echo hi >&7; read -r a <&7; echo "$a"; `, port(model))+forks(100, fmt.Sprintf("1006.%d", os.Getpid())))
	if err != nil {
		t.Fatalf("%v\n%s", err, got.out)
	}
	var n int
	if i := strings.Index(got.out, "forked"); i >= 0 {
		fmt.Sscanf(got.out[i:], "forked %d", &n)
	}
	if !strings.Contains(got.out, "model hi") || n == 0 || n >= 32 || got.usage.PidsRefused == 0 {
		t.Errorf("want the model's answer and fewer than 32 forks: %+v\n%s", got.usage, got.out)
	}
}

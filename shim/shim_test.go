package shim_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
	"github.com/swetouch/swetouch/shim"
)

var binDir string

func TestMain(m *testing.M) { testbin.Main(m, &binDir) }

// startHub serves a hub for workspace dir on a socket and returns the
// environment that puts the shim first on PATH.
func startHub(t *testing.T, dir string, opts ...session.Option) (*session.Hub, []string) {
	t.Helper()
	h, err := session.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	sock := sessiontest.Listen(t, h)
	env := append(os.Environ(), shim.EnvSocket+"="+sock, shim.EnvDir+"="+binDir, "PATH="+binDir+":"+os.Getenv("PATH"))
	return h, env
}

type result struct {
	stdout, stderr []byte
	status         string
}

func runShell(t *testing.T, shell string, env []string, dir, script string, stdin []byte) result {
	t.Helper()
	cmd := exec.Command(shell, "-c", script)
	cmd.Env, cmd.Dir = env, dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &o, &e, bytes.NewReader(stdin)
	cmd.Run()
	return result{o.Bytes(), e.Bytes(), cmd.ProcessState.String()}
}

// TestTransparency (invariant 1): under vanilla, a command run through the
// shim and directly through bash gives the same stdout, stderr and status.
func TestTransparency(t *testing.T) {
	dir := t.TempDir()
	_, env := startHub(t, dir)
	tests := []struct {
		name, script string
		stdin        []byte
	}{
		{"text", "echo out; echo err >&2; printf 'no newline'", nil},
		{"binary and non-UTF-8", `printf '\x00\xff\xfe\x80abc\x00'; printf '\xc3\x28' >&2`, nil},
		{"10 MB", "head -c 10000000 /dev/zero | tr '\\0' 'a'; echo; head -c 3000000 /dev/zero | base64 >&2", nil},
		{"stdin", "wc -c; tr a-z A-Z", []byte("hello stdin\n")},
		{"killed by a signal", "echo before; kill -KILL $$", nil},
		{"sh -c semantics", "set -e; false; echo unreachable", nil},
		{"cwd and env", "pwd; echo $HOME", nil},
	}
	for code := 0; code <= 255; code += 17 {
		tests = append(tests, struct {
			name, script string
			stdin        []byte
		}{fmt.Sprintf("exit %d", code), fmt.Sprintf("exit %d", code), nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := runShell(t, "/bin/bash", os.Environ(), dir, tt.script, tt.stdin)
			got := runShell(t, filepath.Join(binDir, "bash"), env, dir, tt.script, tt.stdin)
			if !bytes.Equal(got.stdout, want.stdout) {
				t.Errorf("stdout differs: %d bytes vs %d", len(got.stdout), len(want.stdout))
			}
			if !bytes.Equal(got.stderr, want.stderr) {
				t.Errorf("stderr differs: %q vs %q", trunc(got.stderr), trunc(want.stderr))
			}
			if got.status != want.status {
				t.Errorf("status %q, bash %q", got.status, want.status)
			}
		})
	}
}

func trunc(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// TestInterrupt: SIGINT sent to the shim's process group (what a terminal
// or an agent's timeout does) ends the command as it ends bash.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	_, env := startHub(t, dir)
	status := func(shell string, env []string) string {
		cmd := exec.Command(shell, "-c", "echo ready; sleep 30; echo late")
		cmd.Env, cmd.Dir = env, dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(out)
		if l, _ := r.ReadString('\n'); l != "ready\n" {
			t.Fatalf("got %q", l)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		rest, _ := r.ReadString(0)
		cmd.Wait()
		if strings.Contains(rest, "late") {
			t.Errorf("%s: command not interrupted", shell)
		}
		return cmd.ProcessState.String()
	}
	want := status("/bin/bash", os.Environ())
	if got := status(filepath.Join(binDir, "bash"), env); got != want {
		t.Errorf("status %q, bash %q", got, want)
	}
}

// TestPassThrough: without a session, and for invocations other than -c,
// the shim is bash.
func TestPassThrough(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.sh"), []byte("echo script $1; exit 4\n"), 0o755)
	noSession := append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), shim.EnvDir+"="+binDir)
	for _, args := range [][]string{{"-c", "echo $0 $#; exit 5"}, {"-c", "echo $0 $#", "name", "a"}, {"s.sh", "x"}} {
		want := exec.Command("/bin/bash", args...)
		want.Dir, want.Args[0] = dir, filepath.Join(binDir, "bash")
		wo, _ := want.CombinedOutput()
		got := exec.Command(filepath.Join(binDir, "bash"), args...)
		got.Dir, got.Env = dir, noSession
		gout, _ := got.CombinedOutput()
		if string(gout) != string(wo) || got.ProcessState.ExitCode() != want.ProcessState.ExitCode() {
			t.Errorf("%v: %q %d, bash %q %d", args, gout, got.ProcessState.ExitCode(), wo, want.ProcessState.ExitCode())
		}
	}
}

// TestRealShellLookup: the shim finds the shell it stands in for on PATH
// past its own directory, however PATH names that directory, and past its
// own file under another name; the C and Go paths alike. A fake bash that
// only says who it is stands first after them.
func TestRealShellLookup(t *testing.T) {
	tmp := t.TempDir()
	fake := filepath.Join(tmp, "fake")
	os.Mkdir(fake, 0o755)
	os.WriteFile(filepath.Join(fake, "bash"), []byte("#!/bin/sh\necho fake bash \"$@\"\n"), 0o755)
	os.Symlink(binDir, filepath.Join(tmp, "shims-link"))
	other := filepath.Join(tmp, "other")
	os.Mkdir(other, 0o755)
	os.Symlink(filepath.Join(binDir, "swetouch-shim"), filepath.Join(other, "bash"))
	tests := []struct{ name, before string }{
		{"as named", binDir},
		{"trailing slash", binDir + "/"},
		{"dot and doubled slashes", binDir + "/.//"},
		{"through a symbolic link", filepath.Join(tmp, "shims-link")},
		{"the shim under another name", binDir + ":" + other},
	}
	for _, tt := range tests {
		for _, path := range []string{"c", "go"} {
			t.Run(tt.name+"/"+path, func(t *testing.T) {
				env := append(os.Environ(), "PATH="+tt.before+":"+fake+":"+os.Getenv("PATH"), shim.EnvDir+"="+binDir, shim.EnvSocket+"=")
				if path == "go" {
					env = append(env, "SWETOUCH_SHIM_GO=1")
				}
				// a shim that found itself would exec itself for ever
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, filepath.Join(binDir, "bash"), "-c", "true")
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				if err != nil || string(out) != "fake bash -c true\n" {
					t.Errorf("ran %q (%v), want the fake bash", out, err)
				}
			})
		}
	}
}

package shim_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// goPath makes the shim binary take its Go path instead of the C fast path
// that runs before Go starts (cmd/swetouch-shim/fast.c).
const goPath = "SWETOUCH_SHIM_GO=1"

// TestFastPathAsGo: the shim's C fast path and its Go path are one shim.
// For each command, run once each way against a fresh hub, the agent sees
// the same stdout, stderr and status, and the hub records the same
// trajectory, byte for byte: command, cwd, exit, signal, and the output's
// head and tail around the 16 KiB marks. (Each command writes to one
// stream: how two pipes' bytes interleave in the record is up to the
// scheduler, on either path.)
func TestFastPathAsGo(t *testing.T) {
	tests := []struct {
		name, script, sub string
	}{
		{"text", "echo out; printf 'no newline'", ""},
		{"stderr", "echo err >&2; printf '\\xed\\xa0\\x80' >&2", ""},
		{"no output", "true", ""},
		{"non-UTF-8 and controls", `printf '\x00\xff\xfe\x80abc\x01\x1f\xc3\x28 \xe2\x80\xa8 \x7f'`, ""},
		{"a command to escape", "echo 'a\"b\\c' \t \u00fc \u2028\n# \x01 \xff line two", ""},
		{"all of it kept", "head -c 32768 /dev/zero | tr '\\0' y", ""},
		{"one byte elided", "head -c 32769 /dev/zero | tr '\\0' y", ""},
		{"head and tail", "seq 1 20000", ""},
		{"killed by a signal", "echo before; kill -TERM $$", ""},
		{"exit status", "exit 7", ""},
		{"in a subdirectory", "pwd", "sub"},
		{"through a symbolic link", "pwd; cat a.txt", "link"}, // the read's path is named as the agent names it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs [2]struct {
				res        result
				trajectory []byte
			}
			for i, extra := range []string{"", goPath} {
				dir := t.TempDir()
				os.Mkdir(filepath.Join(dir, "sub"), 0o755)
				os.Symlink("sub", filepath.Join(dir, "link"))
				os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("a\n"), 0o644)
				var traj bytes.Buffer
				w, err := trajectory.NewWriter(&traj, trajectory.Header{})
				if err != nil {
					t.Fatal(err)
				}
				at := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
				hub, env := startHub(t, dir, session.WithRecorder(w), session.WithClock(func() time.Time { return at }))
				// as an agent runs a command in a directory it names: PWD says
				// the name, symbolic links and all
				env = append(env, "PWD="+filepath.Join(dir, tt.sub), extra)
				runs[i].res = runShell(t, filepath.Join(binDir, "bash"), env, filepath.Join(dir, tt.sub), tt.script, nil)
				runs[i].res.stdout = bytes.ReplaceAll(runs[i].res.stdout, []byte(dir), []byte("$WS"))
				hub.Status() // the hub may still be recording the end it has answered
				// cwd is the run's own directory
				runs[i].trajectory = bytes.ReplaceAll(traj.Bytes(), []byte(dir), []byte("$WS"))
			}
			c, g := runs[0], runs[1]
			if !bytes.Equal(c.res.stdout, g.res.stdout) || !bytes.Equal(c.res.stderr, g.res.stderr) || c.res.status != g.res.status {
				t.Errorf("the agent sees\nC  %q %q %s\nGo %q %q %s", trunc(c.res.stdout), trunc(c.res.stderr), c.res.status,
					trunc(g.res.stdout), trunc(g.res.stderr), g.res.status)
			}
			if !bytes.Equal(c.trajectory, g.trajectory) {
				t.Errorf("the hub records\nC  %s\nGo %s", trunc(c.trajectory[min(len(c.trajectory), 45):]), trunc(g.trajectory[min(len(g.trajectory), 45):]))
			}
			if len(c.trajectory) == 0 || !bytes.Contains(c.trajectory, []byte(`"kind":"command"`)) && !bytes.Contains(c.trajectory, []byte(`"exit"`)) {
				t.Errorf("the hub recorded no command: %s", c.trajectory)
			}
		})
	}
}

// TestFastPathDelivers: a Counter-Edit fired by a read reaches the agent
// after the command's output the same way on both paths.
func TestFastPathDelivers(t *testing.T) {
	var outs [2]result
	for i, extra := range []string{"", goPath} {
		ws, sock, _ := sessiontest.Serve(t, "../examples/tasks/py-discount", policy.CounterEdit, sessiontest.Watched())
		env := append(os.Environ(), "SWETOUCH_SOCKET="+sock, "SWETOUCH_SHIM_DIR="+binDir, "PATH="+binDir+":"+os.Getenv("PATH"), extra)
		outs[i] = runShell(t, filepath.Join(binDir, "bash"), env, ws, "sed -n 4,6p pricing.py", nil)
	}
	if !bytes.Contains(outs[0].stdout, []byte("</user-message>")) {
		t.Fatalf("no message after the read: %q", outs[0].stdout)
	}
	if !bytes.Equal(outs[0].stdout, outs[1].stdout) || outs[0].status != outs[1].status {
		t.Errorf("C  %q %s\nGo %q %s", outs[0].stdout, outs[0].status, outs[1].stdout, outs[1].status)
	}
}

// TestHubGoneMidCommand: a hub that answers begin and then hangs up (the
// run ended while the command ran) costs the agent nothing: the command's
// output and status are bash's, on both paths, and the shim does not die
// of the broken socket.
func TestHubGoneMidCommand(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "hub.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				bufio.NewReader(c).ReadString('\n') // begin
				c.Write([]byte("{\"ok\":true,\"id\":1}\n"))
				c.Close() // and gone before end
			}()
		}
	}()
	env := append(os.Environ(), "SWETOUCH_SOCKET="+sock, "SWETOUCH_SHIM_DIR="+binDir, "PATH="+binDir+":"+os.Getenv("PATH"))
	want := runShell(t, "/bin/bash", os.Environ(), dir, "echo out; sleep 0.1; echo err >&2; exit 3", nil)
	for _, extra := range []string{"", goPath} {
		got := runShell(t, filepath.Join(binDir, "bash"), append(env[:len(env):len(env)], extra), dir, "echo out; sleep 0.1; echo err >&2; exit 3", nil)
		if !bytes.Equal(got.stdout, want.stdout) || !bytes.Equal(got.stderr, want.stderr) || got.status != want.status {
			t.Errorf("%q: %q %q %s; bash %q %q %s", extra, got.stdout, got.stderr, got.status, want.stdout, want.stderr, want.status)
		}
	}
}

// TestMergedStreams: an agent that reads a command's stdout and stderr
// from one pipe (2>&1, as mini-swe-agent does) gets them in the order
// bash wrote them, on both paths, and the hub records that order.
func TestMergedStreams(t *testing.T) {
	dir := t.TempDir()
	script := "for i in $(seq 1 300); do echo out$i; echo err$i >&2; done; printf x >&2; echo y"
	merged := func(shell string, env []string) string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(shell, "-c", script)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, w, w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		out, _ := io.ReadAll(r)
		cmd.Wait()
		return string(out)
	}
	want := merged("/bin/bash", os.Environ())
	for _, extra := range []string{"", goPath} {
		var traj bytes.Buffer
		w, _ := trajectory.NewWriter(&traj, trajectory.Header{})
		hub, env := startHub(t, dir, session.WithRecorder(w))
		if got := merged(filepath.Join(binDir, "bash"), append(env, extra)); got != want {
			t.Errorf("%q: the agent got the streams in another order:\n%.120q\nbash:\n%.120q", extra, got, want)
		}
		hub.Status()
		if !bytes.Contains(traj.Bytes(), []byte(`out1\nerr1\nout2\nerr2\n`)) {
			t.Errorf("%q: the hub recorded another order: %.300s", extra, traj.Bytes())
		}
	}
}

// TestSpawnFailureEnds: when the real shell cannot be started the shim
// says so, exits 126, and ends the command it had begun with the hub (on
// both paths), which records that status rather than leaving it running.
func TestSpawnFailureEnds(t *testing.T) {
	for _, extra := range []string{"", goPath} {
		dir := t.TempDir()
		var traj bytes.Buffer
		w, _ := trajectory.NewWriter(&traj, trajectory.Header{})
		hub, env := startHub(t, dir, session.WithRecorder(w))
		env = append(env, "SWETOUCH_REAL_SHELL="+filepath.Join(dir, "no-such-bash"), extra)
		res := runShell(t, filepath.Join(binDir, "bash"), env, dir, "echo hi", nil)
		if res.status != "exit status 126" || !bytes.Contains(res.stderr, []byte("swetouch shell: fork/exec")) {
			t.Errorf("%q: %s, stderr %q", extra, res.status, res.stderr)
		}
		if s := hub.Status(); s.Running != 0 || s.Steps != 1 {
			t.Errorf("%q: hub has %d running, %d steps; want 0 and 1", extra, s.Running, s.Steps)
		}
		if !bytes.Contains(traj.Bytes(), []byte(`"exit":126`)) {
			t.Errorf("%q: trajectory has no exit 126: %s", extra, traj.Bytes())
		}
	}
}

// TestLoginShellCommand: `bash -lc CMD` and `bash -c -l CMD` (SWE-agent's
// and many harnesses' way of running a command) are a step on both paths,
// with the login shell's output the real one's: its profile is still
// read, as it would have been.
func TestLoginShellCommand(t *testing.T) {
	for _, args := range [][]string{{"-lc", "echo $0; shopt -q login_shell && echo login"}, {"-c", "-l", "echo $0; shopt -q login_shell && echo login"}, {"--login", "-c", "echo $0; shopt -q login_shell && echo login"}} {
		want, err := exec.Command("/bin/bash", args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, extra := range []string{"", goPath} {
			dir := t.TempDir()
			var traj bytes.Buffer
			w, _ := trajectory.NewWriter(&traj, trajectory.Header{})
			hub, env := startHub(t, dir, session.WithRecorder(w))
			cmd := exec.Command(filepath.Join(binDir, "bash"), args...)
			cmd.Args[0] = "/bin/bash"
			cmd.Env, cmd.Dir = append(env, extra), dir
			got, err := cmd.Output()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%q %q: %q %v, bash %q", args, extra, got, err, want)
			}
			if s := hub.Status(); s.Steps != 1 {
				t.Errorf("%q %q: the hub has %d steps, want 1: %s", args, extra, s.Steps, traj.Bytes())
			}
		}
	}
}

// TestToolExecsItsScript: a tool's script on PATH that execs another
// script of its own (pyenv's python3 shim exec'ing libexec/pyenv, a bash
// script in a folder not on PATH) is the tool's internals, on both paths:
// no step, the output the tool's. A script the tool starts as a child is
// judged afresh (the mark is the exec'ing process's pid).
func TestToolExecsItsScript(t *testing.T) {
	for _, extra := range []string{"", goPath} {
		dir := t.TempDir()
		for _, d := range []string{"tools", "libexec"} {
			os.Mkdir(filepath.Join(dir, d), 0o755)
		}
		write := func(p, text string) {
			if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write("libexec/inner.sh", "#!/usr/bin/env bash\necho one\necho two\n")
		write("child.sh", "#!/usr/bin/env bash\necho child\n")
		write("tools/mytool", "#!/usr/bin/env bash\n"+filepath.Join(dir, "child.sh")+"\nexec "+filepath.Join(dir, "libexec/inner.sh")+"\n")
		var traj bytes.Buffer
		w, _ := trajectory.NewWriter(&traj, trajectory.Header{})
		hub, env := startHub(t, dir, session.WithRecorder(w))
		for i, e := range env {
			if strings.HasPrefix(e, "PATH=") {
				env[i] = e + ":" + filepath.Join(dir, "tools")
			}
		}
		cmd := exec.Command(filepath.Join(dir, "tools", "mytool"))
		cmd.Env, cmd.Dir = append(env, extra), dir
		got, err := cmd.Output()
		if err != nil || string(got) != "child\none\ntwo\n" {
			t.Errorf("%q: %q %v", extra, got, err)
		}
		if s := hub.Status(); s.Steps != 1 || !bytes.Contains(traj.Bytes(), []byte(`"command":"echo child"`)) {
			t.Errorf("%q: the hub has %d steps, want 1 (the child script's): %s", extra, s.Steps, traj.Bytes())
		}
	}
}

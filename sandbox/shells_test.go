package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShellsStandIn: with Shells, every absolute path a program starts a
// shell by runs the shim (here a script that names itself), the real
// shells answer at Real alone, which the sandboxed process can neither
// change nor move, and the sandbox's own start script still runs (in the
// real sh: it would otherwise have been the shim's first command).
func TestShellsStandIn(t *testing.T) {
	r := need(t)
	const real = "/run/swetouch-shells"
	dir := t.TempDir()
	fake := filepath.Join(dir, "shim")
	if err := os.WriteFile(fake, []byte("#!"+real+"/sh\necho \"shim $0 $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	// the agent's install bound at a shell's own path (an agent run as
	// `/usr/bin/bash agent.sh`) does not undo the shim there
	bash, _ := filepath.EvalSymlinks("/bin/bash")
	spec := Spec{Writable: []string{ws}, ReadOnly: []string{bash}, Home: "/root", Dir: ws, Shells: Shells{Shim: fake, Real: real}}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/root"}
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
	_, covered, _ := ShellFiles()
	if !slices.Contains(covered, "/bin/sh") || !slices.Contains(covered, "/bin/bash") {
		t.Fatalf("ShellFiles covers %q, want /bin/sh and /bin/bash among them", covered)
	}
	for _, p := range covered {
		out, err := run(p, "-c", "echo real")
		if want := "shim " + p + " -c echo real\n"; err != nil || out != want {
			t.Errorf("%s: %q (%v), want %q", p, out, err, want)
		}
	}
	for _, tc := range []struct{ name, script, want string }{
		{"sh", "echo $((6*7))", "42\n"},
		{"bash", "echo ${BASH_VERSION%%.*}", ""},
		{"sh", "touch " + real + "/x 2>/dev/null || echo refused", "refused\n"},
		{"sh", "mv " + real + " /run/elsewhere 2>/dev/null || echo refused", "refused\n"},
		{"sh", "rm -f " + real + "/bash 2>/dev/null; ls " + real, "bash\ndash\nrbash\nsh\n"},
	} {
		out, err := run(real+"/"+tc.name, "-c", tc.script)
		if err != nil || tc.want != "" && out != tc.want || tc.want == "" && (strings.HasPrefix(out, "shim") || out == "") {
			t.Errorf("%s -c %q: %q (%v), want %q", tc.name, tc.script, out, err, tc.want)
		}
	}
	// the verifier's sandbox (no Shells) keeps the real ones
	spec.Shells = Shells{}
	if out, err := run("/bin/sh", "-c", "echo real"); err != nil || out != "real\n" {
		t.Errorf("without Shells, /bin/sh: %q (%v)", out, err)
	}
}

// TestUnseenShells: without a sandbox every shell path is unseen; in one,
// none of a shell the shim knows.
func TestUnseenShells(t *testing.T) {
	_, covered, uncovered := ShellFiles()
	if got := UnseenShells(false); len(got) != len(covered)+len(uncovered) || !slices.Contains(got, "/bin/sh") {
		t.Errorf("UnseenShells(false) = %q", got)
	}
	if got := UnseenShells(true); !slices.Equal(got, uncovered) {
		t.Errorf("UnseenShells(true) = %q, want %q", got, uncovered)
	}
}

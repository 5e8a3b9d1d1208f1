package shim_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHubUnreachable: a shim whose session's hub cannot be reached runs
// the command as bash would, and says on stderr that it is not recorded,
// the same on both paths.
func TestHubUnreachable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "gone.sock")
	want := "swetouch shell: the session hub at " + sock + " cannot be reached: this command is not recorded\n"
	for _, path := range []struct{ name, env string }{{"C", ""}, {"Go", "SWETOUCH_SHIM_GO=1"}} {
		t.Run(path.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, "bash"), "-c", "echo hi; exit 3")
			cmd.Env = append(os.Environ(), "SWETOUCH_SOCKET="+sock, "SWETOUCH_SHIM_DIR="+binDir, path.env)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if cmd.ProcessState.ExitCode() != 3 || stdout.String() != "hi\n" {
				t.Errorf("exit %d (%v), stdout %q: want bash's own", cmd.ProcessState.ExitCode(), err, stdout.String())
			}
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
		})
	}
}

package fastjson

import (
	"os"
	"os/exec"
	"testing"
)

// referenceSuites are the packages whose JSON or HTTP/1.1 framing is
// hand-written (the callers of this package, and proxy/mcp's HTTP relay).
var referenceSuites = []string{"event", "trajectory", "session/...", "proxy/..."}

// TestReferenceSuites runs the hand-written paths' callers' tests with
// SWETOUCH_REFERENCE=1: encoding/json for every reading and writing,
// net/http for the HTTP relay. This run (the switch off) is the other
// half. A test that passes one way and fails the other is a bug of the
// fast path or of its reference; a test of the fast path's reach alone
// skips, saying so.
func TestReferenceSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the callers' tests again, a minute and more (-short)")
	}
	if Reference() {
		t.Skip("already the reference")
	}
	args := []string{"test", "-count=1"}
	for _, p := range referenceSuites {
		args = append(args, "github.com/swetouch/swetouch/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), ReferenceEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("with %s=1: %v\n%s", ReferenceEnv, err, out)
	}
	t.Logf("with %s=1:\n%s", ReferenceEnv, out)
}

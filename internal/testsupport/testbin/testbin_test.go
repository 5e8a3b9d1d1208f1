package testbin

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltWithRace: the binaries are race-checked exactly when the tests
// are (go test -race), as go version -m reads from them.
func TestBuiltWithRace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries (-short)")
	}
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	defer Cleanup()
	for _, name := range []string{"swetouch", "swetouch-shim"} {
		out, err := exec.Command("go", "version", "-m", filepath.Join(dir, name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), "-race=true"); got != race {
			t.Errorf("%s: built with -race %v, the tests %v", name, got, race)
		}
	}
}

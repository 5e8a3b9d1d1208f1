// Package testbin builds the swetouch binary once per test process, for
// tests that must run it as a real executable (as bash, as an agent).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/sandbox"
)

var (
	once sync.Once
	dir  string
	err  error
	// plain: build without -race even when the tests are (Plain)
	plain bool
)

// Plain has the binaries built without the race detector even under go
// test -race: for the end-to-end packages, whose real agents under a
// race-built swetouch outrun go test's ten minutes and whose memory
// budgets the detector's shadow memory would break. The hub and the
// relays stay race-checked as subprocesses in their own packages' tests.
// Call it from TestMain, before anything asks for Dir.
func Plain() { plain = true }

// Dir returns a directory holding the built swetouch and swetouch-shim,
// and the links bash and sh to the shim: the shim directory, as installed. Call Cleanup from TestMain.
func Dir() (string, error) {
	once.Do(func() {
		dir, err = os.MkdirTemp("", "swetouch-bin-")
		if err != nil {
			return
		}
		// installed binaries are reachable by any uid, a trial's own too
		// (docs/trial-uid.md); MkdirTemp's 0700 would make every
		// sandboxed test trial share swetouch's uid
		if err = os.Chmod(dir, 0o755); err != nil {
			return
		}
		for _, name := range []string{"swetouch", "swetouch-shim"} {
			out, e := exec.Command("go", buildArgs(filepath.Join(dir, name), name)...).CombinedOutput()
			if e != nil {
				err = fmt.Errorf("go build: %v\n%s", e, out)
				return
			}
		}
		for _, n := range []string{"bash", "sh"} {
			if e := os.Symlink("swetouch-shim", filepath.Join(dir, n)); e != nil {
				err = e
				return
			}
		}
	})
	return dir, err
}

// buildArgs are go's arguments building cmd/name to out: with -race when
// the tests are built with it.
func buildArgs(out, name string) []string {
	args := []string{"build"}
	if race && !plain {
		args = append(args, "-race")
	}
	return append(args, "-o", out, "github.com/swetouch/swetouch/cmd/"+name)
}

// Cleanup removes the build. Only TestMain may call it: tests that run
// later in the same process would find the binary gone.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// Main runs a package's tests and removes the build after them: the
// whole of a TestMain. With dir, the build comes first and dir names it
// (a failed build fails the package); without, tests build it when they
// first ask (Dir).
func Main(m *testing.M, dir *string) {
	// where bwrap cannot run, the swetouch the tests start runs its agents
	// unsandboxed (and says so in its results); the sandbox's own tests
	// skip, saying why; where SWETOUCH_REQUIRE names bwrap, the package fails
	if err := (&sandbox.Runner{}).Check(); err != nil {
		if req, rerr := testsupport.IsRequired(testsupport.Bwrap); req || rerr != nil {
			fmt.Fprintf(os.Stderr, "testbin: no sandbox here and %s requires one: %v %v\n", testsupport.RequireEnv, err, rerr)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "testbin: no sandbox here, swetouch runs agents without one (SWETOUCH_SANDBOX=none): %v\n", err)
		os.Setenv("SWETOUCH_SANDBOX", sandbox.None)
	}
	if dir != nil {
		d, err := Dir()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		*dir = d
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

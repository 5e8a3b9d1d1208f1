package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swetouch/swetouch/internal/gocache"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/sandbox"
)

func TestMain(m *testing.M) {
	// the binary is its own shell shim, reached as bash and sh: so is the
	// test binary that stands in for it
	testscript.Main(m, map[string]func(){"swetouch": main, "bash": main, "sh": main, run.SelfCheckCommand: main, gocache.RelayName: main})
}

// TestScripts runs the CLI contracts in testdata/script/*.txtar; -update
// rewrites their golden output.
func TestScripts(t *testing.T) {
	noSandbox := (&sandbox.Runner{}).Check() != nil
	if noSandbox {
		testsupport.Degraded(t, testsupport.Bwrap, "no sandbox here: the scripts' runs and gates go unsandboxed")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// the demo's Go task builds with the host's cache
			if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
				env.Setenv("GOCACHE", strings.TrimSpace(string(out)))
			}
			if noSandbox {
				// the scripts' runs and gates go unsandboxed, saying so
				env.Setenv("SWETOUCH_SANDBOX", sandbox.None)
			}
			return nil
		},
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

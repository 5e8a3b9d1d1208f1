package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swetouch/swetouch/sandbox"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"swetouch": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI contracts in testdata/script/*.txtar; -update
// rewrites their golden output.
func TestScripts(t *testing.T) {
	noSandbox := (&sandbox.Runner{}).Check() != nil
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
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

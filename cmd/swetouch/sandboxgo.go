package main

import (
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/swetouch/swetouch/examples"
	"github.com/swetouch/swetouch/internal/gocache"
	"github.com/swetouch/swetouch/internal/gocache/serve"
	"github.com/swetouch/swetouch/sandbox"
)

// sandboxGo is what runs in r's sandboxes add: this executable, which the
// agents' hooks call back and the scripted agents are, and the
// environment and paths that build Go quickly from the host's cache
// without seeing it. Wherever a sandbox shows this executable it shows
// its copy without the examples' archive: inside, `swetouch examples
// extract` would print the example tasks' hidden tests, solutions and
// records; and no sandbox shows swetouch's module in a module cache.
func sandboxGo(r *sandbox.Runner, exe string) (sandbox.Setup, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	if os.Geteuid() == 0 {
		// each trial's sandbox runs as a uid of its own, which must reach
		// these (root's home is root's alone)
		cache = "/var/cache"
		os.MkdirAll(filepath.Join(cache, "swetouch"), 0o711)
		os.Chmod(filepath.Join(cache, "swetouch"), 0o711)
	}
	scrubbed, err := sandbox.Scrubbed(exe, filepath.Join(cache, "swetouch", "sandboxed"), examples.Archive())
	if err != nil {
		return sandbox.Setup{}, err
	}
	if os.Geteuid() == 0 {
		os.Chmod(filepath.Dir(scrubbed), 0o711)
	}
	r.Over = map[string]string{exe: scrubbed}
	if bi, ok := debug.ReadBuildInfo(); ok && strings.Contains(bi.Main.Path, "/") {
		// the module's owner: its examples' sources under a module cache
		r.Hidden = gocache.ModuleDirs(path.Dir(bi.Main.Path))
	}
	// GOCACHEPROG is the shim beside this executable (else this one)
	relay := exe
	if shim := filepath.Join(filepath.Dir(exe), "swetouch-shim"); isExecutable(shim) {
		relay = shim
	}
	env, visible, err := serve.Host(filepath.Join(cache, "swetouch", "gocache"), relay)
	if err != nil {
		return sandbox.Setup{}, err
	}
	// a SWE-bench task's test.sh grades its log with this executable,
	// which the sandbox shows where PATH may not lead
	env = append(env, "SWETOUCH_GRADE="+exe)
	return sandbox.Setup{Runner: r, Env: env, Visible: append(visible, exe)}, nil
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

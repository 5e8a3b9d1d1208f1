// Command swetouch-shim is the shell shim alone: the program the shim
// directory's bash and sh link to. It does what `swetouch shell` does,
// from a binary a fraction of swetouch's size, because an agent pays its
// start-up on every command (see docs/runtime.md). For the same reason
// its common case, a -c command in a session, runs in C before Go starts
// (fast.c); main is the rest. swetouch links bash and sh to it when it
// sits beside the swetouch executable.
package main

import (
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/internal/gocache"
	"github.com/swetouch/swetouch/shim"
)

func main() {
	argv0 := os.Args[0]
	if filepath.Base(argv0) == gocache.RelayName {
		// GOCACHEPROG in a sandbox: the host's Go build cache, relayed
		os.Exit(gocache.Relay(os.Args[1:]))
	}
	if !shim.Shell(filepath.Base(argv0)) {
		argv0 = "bash"
	}
	shim.Exit(shim.Main(argv0, os.Args[1:]))
}

// Package serve serves the host's Go build cache to sandboxes over a
// Unix socket (gocache.Layers.ServeFetches): a package of its own so that
// the shim, which imports gocache for its relay, does not link net.
package serve

import (
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/swetouch/swetouch/internal/gocache"
)

// Host serves the host's Go build cache, by action ID only, on a socket in
// a folder of this process's own under top, for as long as the process
// runs; the environment and paths that reach it from a sandbox:
// GOCACHEPROG runs relay (the shim binary) as gocache.RelayName. Nothing
// when the host has no Go build cache.
func Host(top, relay string) (env, visible []string, err error) {
	base := gocache.HostCache()
	if base == "" {
		return nil, nil, nil
	}
	removeDead(top)
	dir := filepath.Join(top, strconv.Itoa(os.Getpid()))
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	link, sock := filepath.Join(dir, gocache.RelayName), filepath.Join(dir, "cache.sock")
	if err := os.Symlink(relay, link); err != nil {
		return nil, nil, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, nil, err
	}
	// a sandbox running as its trial's own uid connects too; the cache
	// answers only fetches by action ID
	os.Chmod(sock, 0o666)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				gocache.Layers{Base: []string{base}}.ServeFetches(c)
			}()
		}
	}()
	return gocache.Sandboxed(link, sock), []string{dir, relay}, nil
}

// removeDead removes the folders under top of processes no longer running
// (a run killed before it could).
func removeDead(top string) {
	ents, _ := os.ReadDir(top)
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() && unix.Kill(pid, 0) == unix.ESRCH {
			os.RemoveAll(filepath.Join(top, e.Name()))
		}
	}
}

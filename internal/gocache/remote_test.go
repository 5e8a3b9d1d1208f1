package gocache

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serve serves the layers' gets on a Unix socket, as swetouch serves the
// host's cache to its sandboxes; its path.
func serve(t *testing.T, l Layers) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "cache.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); l.ServeFetches(c) }()
		}
	}()
	return sock
}

// With the real go command, as in a sandbox: a build's results go to a
// first folder; served over a socket as the host's cache, a second build
// through the relay (its own folder, fetching what it lacks) reuses them,
// a cached test result among them, and the first folder is not written.
// The host cache itself is the relay's last resort too, so the standard
// library is not built again.
func TestRelay(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	host, err := exec.Command(gobin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "m.go"), []byte("package m\n\nfunc Three() int { return 3 }\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "m_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestThree(t *testing.T) {\n\tif Three() != 3 {\n\t\tt.Fatal()\n\t}\n}\n"), 0o644)
	first, second := t.TempDir(), t.TempDir()
	goTest := func(env ...string) string {
		cmd := exec.Command(gobin, "test", "./...")
		cmd.Dir = mod
		cmd.Env = append(append(os.Environ(), "GOCACHEPROG="+self, "GOFLAGS=", "GOCACHE="+t.TempDir()), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go test: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := goTest("GOCACHE_TEST_DIR="+first, "GOCACHE_TEST_BASE="+strings.TrimSpace(string(host))); strings.Contains(out, "(cached)") {
		t.Fatalf("a first run of a new package: %s", out)
	}
	before := files(t, first)
	sock := serve(t, Layers{Base: []string{first, strings.TrimSpace(string(host))}})
	if out := goTest("GOCACHE_TEST_DIR="+second, "GOCACHE_TEST_FETCH="+sock); !strings.Contains(out, "(cached)") {
		t.Fatalf("the host's test result was not fetched: %s", out)
	}
	if after := files(t, first); len(after) != len(before) {
		t.Fatalf("the host's cache was written: %d files, then %d", len(before), len(after))
	}
	if len(files(t, second)) == 0 {
		t.Fatal("nothing fetched was kept in the relay's folder")
	}
}

// A fetch of an action no layer holds is a miss; the server answers
// nothing but gets.
func TestFetchMiss(t *testing.T) {
	sock := serve(t, Layers{Base: []string{t.TempDir()}})
	f := NewFetcher(sock)
	if _, _, _, ok := f.Fetch([]byte{1, 2, 3}); ok {
		t.Fatal("a miss was a hit")
	}
	if _, _, _, ok := f.Fetch([]byte{4}); ok {
		t.Fatal("a second miss was a hit")
	}
	if _, _, _, ok := NewFetcher(filepath.Join(t.TempDir(), "none")).Fetch([]byte{1}); ok {
		t.Fatal("a host that cannot be reached gave a hit")
	}
}

package gocache

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary is the go command's cache program when these are set.
func TestMain(m *testing.M) {
	if dir := os.Getenv("GOCACHE_TEST_DIR"); dir != "" {
		l := Layers{Base: filepath.SplitList(os.Getenv("GOCACHE_TEST_BASE")), Dir: dir}
		if sock := os.Getenv("GOCACHE_TEST_FETCH"); sock != "" {
			l.Fetch = NewFetcher(sock).Fetch
		}
		if err := l.Serve(os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// files lists the files under dir.
func files(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// With the real go command: a build's results go to Dir; a later build
// with that among its read-only bases reuses them (a cached test result)
// and writes nothing there. The host's own cache is the last base, so
// the standard library is not built again.
func TestGoCommand(t *testing.T) {
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
	os.WriteFile(filepath.Join(mod, "m.go"), []byte("package m\n\nfunc Two() int { return 2 }\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "m_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal()\n\t}\n}\n"), 0o644)
	first, second := t.TempDir(), t.TempDir()
	goTest := func(dir string, base ...string) string {
		cmd := exec.Command(gobin, "test", "./...")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOCACHEPROG="+self, "GOCACHE_TEST_BASE="+strings.Join(base, string(filepath.ListSeparator)),
			"GOCACHE_TEST_DIR="+dir, "GOFLAGS=", "GOCACHE="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go test: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := goTest(first, strings.TrimSpace(string(host))); strings.Contains(out, "(cached)") {
		t.Fatalf("a first run of a new package: %s", out)
	}
	before := files(t, first)
	if len(before) == 0 {
		t.Fatal("nothing was put")
	}
	if out := goTest(second, first, strings.TrimSpace(string(host))); !strings.Contains(out, "(cached)") {
		t.Fatalf("the base layer's test result was not used: %s", out)
	}
	if after := files(t, first); len(after) != len(before) {
		t.Fatalf("the base layer was written: %d files, then %d", len(before), len(after))
	}
}

// The protocol by hand: the first message names the commands, a get
// misses and then hits in Dir.
func TestProtocol(t *testing.T) {
	dir := t.TempDir()
	body := []byte("compiled")
	sum := sha256.Sum256(body)
	action := bytes.Repeat([]byte{7}, 32)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.Encode(request{ID: 1, Command: "get", ActionID: action})
	enc.Encode(request{ID: 3, Command: "put", ActionID: action, OutputID: sum[:], BodySize: int64(len(body))})
	enc.Encode(base64.StdEncoding.EncodeToString(body))
	enc.Encode(request{ID: 4, Command: "get", ActionID: action})
	enc.Encode(request{ID: 5, Command: "close"})
	var out bytes.Buffer
	if err := (Layers{Dir: dir}).Serve(&in, &out); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var resps []response
	for {
		var r response
		if dec.Decode(&r) != nil {
			break
		}
		resps = append(resps, r)
	}
	if len(resps) != 5 {
		t.Fatalf("%d responses: %+v", len(resps), resps)
	}
	if strings.Join(resps[0].KnownCommands, ",") != "get,put,close" {
		t.Fatalf("first message: %+v", resps[0])
	}
	if !resps[1].Miss {
		t.Fatalf("get before put: %+v", resps[1])
	}
	if resps[2].Err != "" || resps[2].DiskPath == "" {
		t.Fatalf("put: %+v", resps[2])
	}
	if r := resps[3]; r.Miss || !bytes.Equal(r.OutputID, sum[:]) || r.Size != int64(len(body)) {
		t.Fatalf("get after put: %+v", r)
	} else if b, _ := os.ReadFile(r.DiskPath); !bytes.Equal(b, body) {
		t.Fatalf("DiskPath holds %q", b)
	}
}

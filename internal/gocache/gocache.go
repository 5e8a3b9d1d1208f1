// Package gocache is a Go build cache for a sandbox: it serves the go
// command's GOCACHEPROG protocol from the host's build cache, read-only,
// and keeps what the sandbox builds in a folder of its own. A sandboxed
// agent or verifier builds as fast as on the host, and nothing it runs can
// put a forged entry (a cached "ok" for a test) where another trial, or
// the verifier, would read it.
package gocache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/swetouch/swetouch/internal/atomicfile"
)

// request and response are the protocol's messages (cmd/go's cacheprog
// package documents them).
type request struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// Layers are the caches a server reads and writes.
type Layers struct {
	// Base are go build caches (GOCACHE's layout), read in order and never
	// written.
	Base []string
	// Dir is where puts go, in the same layout; get looks here first.
	Dir string
}

// Serve answers the go command on r and w until it sends close or r ends.
func (l Layers) Serve(r io.Reader, w io.Writer) error {
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return err
	}
	br := bufio.NewReaderSize(r, 1<<16)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	send := func(resp response) error {
		if err := enc.Encode(resp); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := send(response{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(br)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("gocache: reading a request: %w", err)
		}
		var body []byte
		if req.Command == "put" && req.BodySize > 0 {
			var b64 string
			if err := dec.Decode(&b64); err != nil {
				return fmt.Errorf("gocache: reading the body of request %d: %w", req.ID, err)
			}
			var err error
			if body, err = base64.StdEncoding.DecodeString(b64); err != nil {
				return fmt.Errorf("gocache: the body of request %d: %w", req.ID, err)
			}
		}
		resp := response{ID: req.ID}
		switch req.Command {
		case "get":
			l.get(req, &resp)
		case "put":
			l.put(req, body, &resp)
		case "close":
			return send(resp)
		default:
			resp.Err = fmt.Sprintf("unknown command %q", req.Command)
		}
		if err := send(resp); err != nil {
			return err
		}
	}
}

// file is where an id's entry ("a") or output ("d") lives in dir.
func file(dir string, id []byte, key string) string {
	h := hex.EncodeToString(id)
	if len(h) < 2 {
		h = "00" + h
	}
	return filepath.Join(dir, h[:2], h+"-"+key)
}

func (l Layers) get(req request, resp *response) {
	for _, dir := range append([]string{l.Dir}, l.Base...) {
		if out, size, t, ok := readEntry(file(dir, req.ActionID, "a"), req.ActionID); ok {
			p := file(dir, out, "d")
			if info, err := os.Stat(p); err == nil && info.Size() == size {
				resp.OutputID, resp.Size, resp.DiskPath, resp.Time = out, size, p, &t
				return
			}
		}
	}
	resp.Miss = true
}

// readEntry reads an action entry: "v1 <hex id> <hex out> <size> <unixnano>".
func readEntry(p string, id []byte) (out []byte, size int64, t time.Time, ok bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, 0, t, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[0] != "v1" || f[1] != hex.EncodeToString(id) {
		return nil, 0, t, false
	}
	out, err = hex.DecodeString(f[2])
	if err != nil {
		return nil, 0, t, false
	}
	size, err1 := strconv.ParseInt(f[3], 10, 64)
	ns, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, 0, t, false
	}
	return out, size, time.Unix(0, ns), true
}

func (l Layers) put(req request, body []byte, resp *response) {
	if sum := sha256.Sum256(body); len(req.OutputID) == len(sum) && !bytes.Equal(sum[:], req.OutputID) {
		// the go command names outputs by their hash; keep its own check
		// that a body is what its id says, so a bad put is an error
		resp.Err = "output id does not match the body"
		return
	}
	d := file(l.Dir, req.OutputID, "d")
	if err := writeFile(d, body); err != nil {
		resp.Err = err.Error()
		return
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, len(body), time.Now().UnixNano())
	if err := writeFile(file(l.Dir, req.ActionID, "a"), []byte(entry)); err != nil {
		resp.Err = err.Error()
		return
	}
	resp.DiskPath = d
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(p, 0o600, b)
}

// Sandboxed is how a sandboxed process builds Go against the host's
// cache: the environment to add (GOCACHEPROG runs swetouch's own server,
// writing under the sandbox's /tmp) and the host paths it must see (the
// cache, read-only). Nothing when there is no go command or host cache.
func Sandboxed(swetouch string) (env, visible []string) {
	if swetouch == "" || strings.ContainsAny(swetouch, " \t") {
		return nil, nil // GOCACHEPROG is split at spaces
	}
	if _, err := exec.LookPath("go"); err != nil {
		return nil, nil
	}
	base := hostCache()
	if base == "" || base == "off" || strings.ContainsAny(base, " \t") {
		return nil, nil
	}
	if info, err := os.Stat(base); err != nil || !info.IsDir() {
		return nil, nil
	}
	return []string{"GOCACHEPROG=" + swetouch + " gocache --base " + base + " --dir /tmp/swetouch-gocache"}, []string{base}
}

// hostCache is the go command's build cache: GOCACHE, else its default
// under the user's cache folder, else what `go env` says (its own
// configuration file may set it; asking costs a process, 10 to 20 ms).
func hostCache() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	if dir, err := os.UserCacheDir(); err == nil {
		if info, err := os.Stat(filepath.Join(dir, "go-build")); err == nil && info.IsDir() {
			return filepath.Join(dir, "go-build")
		}
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ModuleDirs are where the host's module caches keep module's sources
// and downloads (module a path prefix: github.com/swetouch): a sandbox
// that would show a module cache must not show swetouch's own, whose
// examples hold the built-in tasks' hidden tests and solutions.
func ModuleDirs(module string) []string {
	var caches []string
	if c := os.Getenv("GOMODCACHE"); c != "" {
		caches = append(caches, c)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, p := range filepath.SplitList(gopath) {
		if filepath.IsAbs(p) {
			caches = append(caches, filepath.Join(p, "pkg", "mod"))
		}
	}
	var out []string
	for _, c := range caches {
		out = append(out, filepath.Join(c, filepath.FromSlash(module)), filepath.Join(c, "cache", "download", filepath.FromSlash(module)))
	}
	return out
}

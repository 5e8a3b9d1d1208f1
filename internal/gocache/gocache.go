// Package gocache is a Go build cache for a sandbox: it serves the go
// command's GOCACHEPROG protocol from the host's build cache, read-only,
// and keeps what the sandbox builds in a folder of its own. A sandboxed
// agent or verifier builds as fast as on the host, and nothing it runs can
// put a forged entry (a cached "ok" for a test) where another trial, or
// the verifier, would read it.
package gocache

import (
	"bufio"
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
	// Fetch, when set, is asked for what no layer holds (the host's cache
	// from inside a sandbox: Fetcher); what it gives is kept in Dir.
	Fetch func(action []byte) (out, body []byte, t time.Time, ok bool)
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
	if l.Fetch != nil {
		if out, body, t, ok := l.Fetch(req.ActionID); ok && l.keep(req.ActionID, out, body, t) == nil {
			resp.OutputID, resp.Size, resp.DiskPath, resp.Time = out, int64(len(body)), file(l.Dir, out, "d"), &t
			return
		}
	}
	resp.Miss = true
}

// keep writes a fetched output and its entry into Dir.
func (l Layers) keep(action, out, body []byte, t time.Time) error {
	if err := writeFile(file(l.Dir, out, "d"), body); err != nil {
		return err
	}
	return writeFile(file(l.Dir, action, "a"), []byte(fmt.Sprintf("v1 %x %x %20d %20d\n", action, out, len(body), t.UnixNano())))
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

// put keeps an output in Dir. Its id is not checked against its body's
// hash: puts go only to a relay's own folder in its sandbox (the host is
// never written), where a lying put misleads only that sandbox's builds,
// and the shim, which the relay is, stays without crypto's packages.
func (l Layers) put(req request, body []byte, resp *response) {
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

// RelayName is the name GOCACHEPROG runs the shim binary by, as the
// relay to the host's cache (Relay).
const RelayName = "swetouch-gocache"

// RelayDir is where a relay keeps what its sandbox's builds put and
// fetched: the sandbox's own /tmp.
const RelayDir = "/tmp/swetouch-gocache"

// Sandboxed is how a sandboxed process builds Go against the host's cache
// served on socket (ServeFetches): the environment to add, GOCACHEPROG
// running relay (a link named RelayName) with the socket. Nothing when
// there is no go command or host cache, or a path has a space in it
// (GOCACHEPROG is split at spaces).
func Sandboxed(relay, socket string) []string {
	if strings.ContainsAny(relay+socket, " \t") || HostCache() == "" {
		return nil
	}
	return []string{"GOCACHEPROG=" + relay + " " + socket}
}

// Relay is the shim binary run as RelayName: GOCACHEPROG for a sandboxed
// build, its puts kept in RelayDir, what it lacks fetched from the host
// over the socket args name.
func Relay(args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "%s SOCKET: the host cache's socket is required\n", RelayName)
		return 2
	}
	if err := (Layers{Dir: RelayDir, Fetch: NewFetcher(args[0]).Fetch}).Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", RelayName, err)
		return 1
	}
	return 0
}

// HostCache is the go command's build cache on the host, "" when there
// is none to read (no go command, GOCACHE=off, not a folder).
func HostCache() string {
	if _, err := exec.LookPath("go"); err != nil {
		return ""
	}
	base := hostCache()
	if base == "" || base == "off" {
		return ""
	}
	if info, err := os.Stat(base); err != nil || !info.IsDir() {
		return ""
	}
	return base
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

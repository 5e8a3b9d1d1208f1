package gocache

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// A sandbox's builds read the host's cache through a socket rather than a
// mount: a mounted cache can be listed and read whole, and it holds what
// the host built before (a task's hidden tests, compiled, when they ran
// outside a sandbox). Through the socket an entry is found only by its
// action ID, the hash of every input of the action, a hidden test's
// source among them, so what is served is what the asker could build.
// Inside, GOCACHEPROG is the shim binary as a relay (Layers with Fetch):
// puts stay in the sandbox's /tmp, gets it lacks are fetched with their
// bodies and kept there.

// fetched is the host's answer to a relay's get.
type fetched struct {
	ID       int64
	Miss     bool       `json:",omitempty"`
	Err      string     `json:",omitempty"`
	OutputID []byte     `json:",omitempty"`
	Time     *time.Time `json:",omitempty"`
	Body     []byte     `json:",omitempty"`
}

// ServeFetches answers a relay's gets on rw from the layers' caches, the
// output's body inline, until rw ends. Nothing else is served: no put,
// no listing.
func (l Layers) ServeFetches(rw io.ReadWriter) error {
	dec := json.NewDecoder(bufio.NewReaderSize(rw, 1<<12))
	bw := bufio.NewWriterSize(rw, 1<<16)
	enc := json.NewEncoder(bw)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("gocache: reading a fetch: %w", err)
		}
		resp := fetched{ID: req.ID, Miss: true}
		if req.Command != "get" {
			resp.Err = fmt.Sprintf("unknown command %q", req.Command)
		} else if out, body, t, ok := l.lookup(req.ActionID); ok {
			resp = fetched{ID: req.ID, OutputID: out, Time: &t, Body: body}
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// lookup is an action's output and its body from the layers, in order.
func (l Layers) lookup(action []byte) (out, body []byte, t time.Time, ok bool) {
	for _, dir := range append([]string{l.Dir}, l.Base...) {
		if dir == "" {
			continue
		}
		out, size, t, ok := readEntry(file(dir, action, "a"), action)
		if !ok {
			continue
		}
		if b, err := os.ReadFile(file(dir, out, "d")); err == nil && int64(len(b)) == size {
			return out, b, t, true
		}
	}
	return nil, nil, t, false
}

// Fetcher asks the host's cache for an action's output over a socket.
// Its zero value is not usable: see NewFetcher.
type Fetcher struct {
	path string
	conn *os.File
	enc  *json.Encoder
	dec  *json.Decoder
	id   int64
}

// NewFetcher is a Fetcher of the host's cache behind the Unix socket at
// path, dialled at the first fetch.
func NewFetcher(path string) *Fetcher { return &Fetcher{path: path} }

// Fetch is the output of action and its body; ok false on a miss or
// when the host cannot be asked (the build then builds it).
func (f *Fetcher) Fetch(action []byte) (out, body []byte, t time.Time, ok bool) {
	if f.conn == nil {
		c, err := dialUnix(f.path)
		if err != nil {
			return nil, nil, t, false
		}
		f.conn, f.enc, f.dec = c, json.NewEncoder(c), json.NewDecoder(bufio.NewReaderSize(c, 1<<16))
	}
	f.id++
	if err := f.enc.Encode(request{ID: f.id, Command: "get", ActionID: action}); err != nil {
		return nil, nil, t, false
	}
	var resp fetched
	if err := f.dec.Decode(&resp); err != nil || resp.ID != f.id || resp.Miss || resp.Err != "" || resp.Time == nil {
		return nil, nil, t, false
	}
	return resp.OutputID, resp.Body, *resp.Time, true
}

// dialUnix connects to the Unix socket at path without the net package,
// which the shim does not link.
func dialUnix(path string) (*os.File, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

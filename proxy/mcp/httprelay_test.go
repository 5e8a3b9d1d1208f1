package mcp

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzFraming: whatever a peer sends, reading a message's head and body
// never panics, and a request body is passed on as exactly the bytes it
// took from the stream (chunk sizes, extensions, trailers and all).
func FuzzFraming(f *testing.F) {
	f.Add([]byte("POST /mcp HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"))
	f.Add([]byte("POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n9\r\ndata: {}\n\r\n0\r\n\r\n"))
	f.Add([]byte("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		br := bufio.NewReader(bytes.NewReader(in))
		h, err := readHead(br)
		if err != nil {
			return
		}
		_ = h.bytes()
		rest, _ := io.ReadAll(io.TeeReader(br, io.Discard))
		// the request body against what the stream held after the head
		raw, body, err := readBody(bufio.NewReader(bytes.NewReader(rest)), h)
		if err == nil && !bytes.HasPrefix(rest, raw) {
			t.Fatalf("raw body %q is not what came: %q", raw, rest)
		}
		if err == nil && h.get("content-length") != "" && !bytes.Equal(raw, body) {
			t.Fatalf("a body by length came out changed")
		}
		readWhole(bufio.NewReader(bytes.NewReader(rest)), h)
		var out bytes.Buffer
		w := reportingWriter{bufio.NewWriter(&out), new(Later)}
		var events func([]byte) []byte // as the relay: only an event stream is read by lines
		stream := strings.Contains(h.get("content-type"), "event-stream")
		if stream {
			events = func(b []byte) []byte { return b }
		}
		copyBody(w, bufio.NewReader(bytes.NewReader(rest)), h, events)
		w.Flush()
		if err == nil && h.has("transfer-encoding", "chunked") && !stream && !bytes.HasPrefix(rest, out.Bytes()) {
			t.Fatalf("a chunked body copied as %q from %q", out.Bytes(), rest)
		}
	})
}

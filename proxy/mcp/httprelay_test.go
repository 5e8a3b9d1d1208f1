package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
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
		h.writeTo(io.Discard.(io.StringWriter))
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

// readHeadByLines is readHead as it was, a string per line: the reading
// readHead keeps.
func readHeadByLines(br *bufio.Reader) (*head, error) {
	h := &head{}
	for total := 0; ; {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if total += len(line); total > 1<<20 {
			return nil, errors.New("header too large")
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && h.first == "":
			continue
		case line == "":
			return h, nil
		case h.first == "":
			h.first = line
		default:
			h.lines = append(h.lines, line)
		}
	}
}

// FuzzReadHead: readHead reads every head, and what follows it, as the
// line by line reading did, with a buffer smaller than some lines.
func FuzzReadHead(f *testing.F) {
	for _, s := range []string{
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
		"\r\n\r\nHTTP/1.1 200 OK\r\nA: b\r\n\r\nrest", "GET / HTTP/1.1\nX: y\n\n", "HTTP/1.1 200 OK\r\nA: " + strings.Repeat("v", 40) + "\r\n\r\n",
		"no end", "A\r\r\n\r\n", "",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, big bool) {
		size := 16 // shorter than some lines: read by parts
		if big {
			size = 4096 // the whole head in the buffer: taken as it lies
		}
		a, b := bufio.NewReaderSize(bytes.NewReader(in), size), bufio.NewReaderSize(bytes.NewReader(in), size)
		got, gerr := readHead(a)
		want, werr := readHeadByLines(b)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: error %v, want %v", in, gerr, werr)
		}
		if gerr != nil {
			return
		}
		if got.first != want.first || !slices.Equal(got.lines, want.lines) {
			t.Fatalf("%q:\n got %q %q\nwant %q %q", in, got.first, got.lines, want.first, want.lines)
		}
		// a head read into one that held another (longer than its own
		// room for lines) is the head a fresh one reads
		again, _ := readHead(bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: 1\r\n", 20) + "Content-Length: 9\r\n\r\n")))
		if err := again.read(bufio.NewReaderSize(bytes.NewReader(in), size)); err != nil {
			t.Fatalf("%q: read again: %v", in, err)
		}
		if again.first != got.first || !slices.Equal(again.lines, got.lines) || !slices.Equal(again.names, got.names) {
			t.Fatalf("%q: read into a used head:\n got %q %q %v\nwant %q %q %v", in, again.first, again.lines, again.names, got.first, got.lines, got.names)
		}
		ra, _ := io.ReadAll(a)
		rb, _ := io.ReadAll(b)
		if !bytes.Equal(ra, rb) {
			t.Fatalf("%q: left %q, want %q", in, ra, rb)
		}
	})
}

// FuzzNamed: a header line is the header name exactly when its name,
// trimmed, is name in ASCII case-blind, and its value is what follows
// the colon, trimmed.
func FuzzNamed(f *testing.F) {
	for _, s := range []string{"Content-Length: 12", " content-LENGTH :3", "Content-Lengths: 1", "Tranſfer-Encoding: chunked",
		"\fContent-Length\u00a0: 7 ", "Content-Length", ":x", "content-length:"} {
		f.Add(s, "content-length")
		f.Add(s, "transfer-encoding")
	}
	f.Fuzz(func(t *testing.T, l, name string) {
		if name == "" || strings.ToLower(name) != name || strings.IndexFunc(name, func(r rune) bool { return r >= 0x80 || r == ':' || r <= ' ' }) >= 0 {
			return // the relay asks for lowercase ASCII names
		}
		k, v, ok := strings.Cut(l, ":")
		k = strings.TrimSpace(k)
		want := ok && len(k) == len(name) && strings.EqualFold(k, name)
		got, gotOK := named(l, name)
		if gotOK != want || want && got != strings.TrimSpace(v) {
			t.Fatalf("named(%q, %q) = %q, %v; want %v (%q)", l, name, got, gotOK, want, strings.TrimSpace(v))
		}
		// the line's known header, found once as its head is read, is
		// each known name named holds for
		for _, n := range knownNames {
			if _, ok := named(l, n); ok != (lineName(l) == known(n)) {
				t.Fatalf("lineName(%q) = %d; named says %q is %v", l, lineName(l), n, ok)
			}
		}
		// in a head the line cannot hold a line end: one becomes a space,
		// which the name's trimming passes over and the value keeps
		line := strings.ReplaceAll(l, "\n", " ")
		h := new(head)
		h.split("POST / HTTP/1.1\n" + line + "\n")
		_, lineV, _ := strings.Cut(trimEOL(line), ":")
		if got := h.get(name); want && got != strings.TrimSpace(lineV) {
			t.Fatalf("get(%q) of %q = %q, want %q", name, line, got, strings.TrimSpace(lineV))
		}
	})
}

// knownNames are the headers lineName knows.
var knownNames = []string{"host", "origin", "expect", "connection", "content-type", "content-length", "mcp-session-id", "transfer-encoding"}

// TestKnownNames: every known header is told apart from the others, by
// its name in any case and spaced, and no other name is taken for one.
func TestKnownNames(t *testing.T) {
	for i, n := range knownNames {
		if known(n) == hOther {
			t.Fatalf("known(%q) = hOther", n)
		}
		for _, l := range []string{n + ": v", strings.ToUpper(n) + ":v", " " + n + " : v", "\u00a0" + n + ": v"} {
			if got := lineName(l); got != known(n) {
				t.Errorf("lineName(%q) = %d, want %d", l, got, known(n))
			}
		}
		for j, m := range knownNames {
			if i != j && known(n) == known(m) {
				t.Errorf("%q and %q are one header", n, m)
			}
		}
		for _, other := range []string{n + "s: v", n[1:] + ": v", "x-" + n + ": v", n + " v"} {
			if got := lineName(other); got != hOther {
				t.Errorf("lineName(%q) = %d, want hOther", other, got)
			}
		}
	}
}

package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// The HTTP relay frames each message itself and passes its bytes on, so
// it and the server must agree on where each message ends: where they
// did not, bytes the relay took for a body would be a request to the
// server (smuggled past the relay's reading of tools/call), or the other
// way. FuzzRequestFramingAsNetHTTP and FuzzResponseFramingAsNetHTTP hold
// the relay's framing to net/http's ReadRequest and ReadResponse: on
// every message net/http reads whole, the relay reads the same body and
// leaves the same bytes for the next message. (Messages net/http refuses
// the server refuses too, whatever the relay makes of them; and the relay
// refuses, closing the connection, a Transfer-Encoding before HTTP/1.1,
// which net/http frames by length: errFaultyFraming.)

// netRequest is a request as net/http frames it: ok false where it
// refuses it.
func netRequest(in []byte) (method string, body, rest []byte, ok bool) {
	br := bufio.NewReader(bytes.NewReader(in))
	req, err := http.ReadRequest(br)
	if err != nil {
		return "", nil, nil, false
	}
	body, err = io.ReadAll(req.Body)
	if err != nil {
		return "", nil, nil, false
	}
	rest, _ = io.ReadAll(br)
	return req.Method, body, rest, true
}

func FuzzRequestFramingAsNetHTTP(f *testing.F) {
	for _, s := range []string{
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\nnext",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabcdef",
		"POST /mcp HTTP/1.1\r\nHost: x\r\ncontent-length:  4 \r\n\r\n{}{}",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n1\r\na\r\n0\r\n\r\n",
		"GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n",
		"DELETE /mcp HTTP/1.1\r\nHost: x\r\nMcp-Session-Id: s\r\n\r\n",
		"POST /mcp HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}",
		"POST /mcp HTTP/1.1\nHost: x\nContent-Length: 2\n\n{}",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		method, body, rest, ok := netRequest(in)
		if !ok {
			return
		}
		br := bufio.NewReader(bytes.NewReader(in))
		h := new(head)
		if err := h.read(br); err != nil {
			t.Fatalf("%q: net/http reads a %s, the relay's head: %v", in, method, err)
		}
		_, got, err := readBody(br, h)
		if errors.Is(err, errFaultyFraming) {
			return // refused, and the connection closed: no framing to differ
		}
		if err != nil {
			t.Fatalf("%q: net/http reads a %s with a %d-byte body, the relay: %v", in, method, len(body), err)
		}
		left, _ := io.ReadAll(br)
		if m, _, _ := strings.Cut(h.first, " "); m != method || !bytes.Equal(got, body) || !bytes.Equal(left, rest) {
			t.Fatalf("%q:\nthe relay: %s body %q, then %q\nnet/http:  %s body %q, then %q", in, m, got, left, method, body, rest)
		}
	})
}

// netResponse is a response to a request of method as net/http frames
// it: ok false where it refuses it.
func netResponse(in []byte, method string) (status int, body, rest []byte, ok bool) {
	br := bufio.NewReader(bytes.NewReader(in))
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return 0, nil, nil, false
	}
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, false
	}
	rest, _ = io.ReadAll(br)
	return resp.StatusCode, body, rest, true
}

// relayResponse is a response as the relay's responses frames it: no
// body after a HEAD or for 1xx, 204 and 304; else chunked, by length, or
// to the end of the connection.
func relayResponse(br *bufio.Reader, isHead bool) (status string, body []byte, err error) {
	h := new(head)
	if err := h.read(br); err != nil {
		return "", nil, err
	}
	st := h.status()
	if isHead || st == "204" || st == "304" || strings.HasPrefix(st, "1") {
		return st, nil, nil
	}
	body, err = readWhole(br, h)
	return st, body, err
}

func FuzzResponseFramingAsNetHTTP(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: {}\n\r\n0\r\n\r\nnext",
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"to\":\"the end\"}",
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\nnext",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nbody",
		"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, isHead bool) {
		method := "POST"
		if isHead {
			method = "HEAD"
		}
		status, body, rest, ok := netResponse(in, method)
		if !ok {
			return
		}
		br := bufio.NewReader(bytes.NewReader(in))
		st, got, err := relayResponse(br, isHead)
		if errors.Is(err, errFaultyFraming) {
			return
		}
		if err != nil {
			t.Fatalf("%q (%s): net/http reads a %d with a %d-byte body, the relay: %v", in, method, status, len(body), err)
		}
		left, _ := io.ReadAll(br)
		if code, _ := strconv.Atoi(st); code != status || !bytes.Equal(got, body) || !bytes.Equal(left, rest) {
			t.Fatalf("%q (%s):\nthe relay: %s body %q, then %q\nnet/http:  %d body %q, then %q", in, method, st, got, left, status, body, rest)
		}
	})
}

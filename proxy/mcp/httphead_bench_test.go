package mcp

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkHTTPHead is the relay's reading of one exchange's heads as
// an MCP client and server send them (mcp-go's): the request's and the
// response's, each into the head its goroutine reuses, with every header
// the relay asks of each.
func BenchmarkHTTPHead(b *testing.B) {
	req := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:35971\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: 76\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: mcp-session-9c3b02f2-50d8-4bd3-ace5-f9aea7ba3265\r\nAccept-Encoding: gzip\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Wed, 02 Dec 2026 01:54:45 GMT\r\nContent-Length: 78\r\n\r\n"
	reqb, respb := []byte(req), []byte(resp)
	var in bytes.Reader
	br := bufio.NewReaderSize(&in, 64<<10)
	h, rh := new(head), new(head)
	b.ReportAllocs()
	for range b.N {
		in.Reset(reqb)
		br.Reset(&in)
		if err := h.read(br); err != nil {
			b.Fatal(err)
		}
		_ = h.get("origin")
		h.set("host", "127.0.0.1:1234")
		_ = h.get("mcp-session-id")
		h.writeTo(io.Discard.(io.StringWriter))
		_ = h.has("expect", "100-continue")
		_ = h.has("transfer-encoding", "chunked")
		_ = h.get("content-length")
		_, _ = h.length(maxBody)
		_ = h.has("connection", "close")

		in.Reset(respb)
		br.Reset(&in)
		h := rh
		if err := h.read(br); err != nil {
			b.Fatal(err)
		}
		_ = strings.HasPrefix(h.status(), "1")
		_ = h.get("content-type")
		_ = h.closeDelimited()
		_ = h.has("transfer-encoding", "chunked")
		_ = h.get("content-length")
		_, _ = h.length(maxBody)
		_ = h.has("transfer-encoding", "chunked") || h.get("content-length") != strconv.Itoa(78)
		h.writeTo(io.Discard.(io.StringWriter))
		_ = h.has("connection", "close") || h.closeDelimited()
	}
}

// Package rawhttp speaks just enough HTTP/1.1 by hand to time a relay
// with no HTTP library on either side: a server that answers every
// request with one fixed response, and the reading of a message's head
// for its length. It serves benchmarks (scripts/bench-runtime's raw part,
// proxy/mcp's BenchmarkHTTPExchange), where a library's own wake-ups and
// allocations would hide the relay's.
package rawhttp

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
)

// Response is a 200 response carrying a JSON body, as bytes to send.
func Response(body string) []byte {
	return fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// Serve answers each request on every connection l accepts with answer,
// until l is closed. A request is read as far as its Content-Length says.
func Serve(l net.Listener, answer []byte) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				n, err := Length(br)
				if err == nil {
					_, err = br.Discard(int(n))
				}
				if err == nil {
					_, err = c.Write(answer)
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// Length reads a message's head, up to its blank line, and returns its
// Content-Length (0 when it gives none).
func Length(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull { // a line past the buffer: not one looked at
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			return 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			return n, nil
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte("content-length")) {
			if n, err = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err != nil {
				return 0, fmt.Errorf("content-length %q: %w", v, err)
			}
		}
	}
}

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// The relays' own cost, apart from the MCP libraries' load: a server and
// a client that speak HTTP/1.1 by hand, one keep-alive connection each,
// the same tools/call each time. With mcp-go's streamable server and
// client on the same two cores, every wake-up of any process is paid
// several times over; here what is left is the relay's and the proxy's.

// helperRawServe serves POSTs on one path with a fixed JSON-RPC result.
const helperRawServe = "-serve-raw-http"

const rawCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping_tool","arguments":{}}}`
const rawResult = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"pong"}]}}`

func rawServe() {
	l := listenURL()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				n, err := rawHead(r)
				if err != nil {
					return
				}
				if _, err := io.CopyN(io.Discard, r, n); err != nil {
					return
				}
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(rawResult), rawResult)
			}
		}()
	}
}

// rawHead reads a message head and returns its Content-Length.
func rawHead(r *bufio.Reader) (int64, error) {
	var n int64
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "content-length") {
			n, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		if line == "\r\n" {
			return n, nil
		}
	}
}

// rawClient is one keep-alive connection to a base URL.
type rawClient struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(base string) (*rawClient, error) {
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return nil, err
	}
	return &rawClient{c, bufio.NewReader(c)}, nil
}

func (rc *rawClient) call() (time.Duration, error) {
	t0 := time.Now()
	if _, err := fmt.Fprintf(rc.c, "POST /mcp HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(rawCall), rawCall); err != nil {
		return 0, err
	}
	n, err := rawHead(rc.r)
	if err != nil {
		return 0, err
	}
	if _, err := io.CopyN(io.Discard, rc.r, n); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// rawTimes times n calls through each base, taking turns, and returns the
// first's median and each other's added time (median of paired
// differences).
func rawTimes(n int, bases ...string) ([]time.Duration, error) {
	var cs []*rawClient
	for _, b := range bases {
		c, err := dialRaw(b)
		if err != nil {
			return nil, err
		}
		defer c.c.Close()
		cs = append(cs, c)
	}
	return inTurns(n, len(cs), func(k int) (time.Duration, error) {
		d, err := cs[k].call()
		if err != nil {
			return 0, fmt.Errorf("raw HTTP call through %s: %v", bases[k], err)
		}
		return d, nil
	})
}

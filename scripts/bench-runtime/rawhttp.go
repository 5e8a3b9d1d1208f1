package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/swetouch/swetouch/internal/rawhttp"
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

func rawServe() { rawhttp.Serve(listenURL(), rawhttp.Response(rawResult)) }

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
	n, err := rawhttp.Length(rc.r)
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

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport/rawhttp"
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

// rawClient is one keep-alive connection to a base URL, sending the
// same request each call.
type rawClient struct {
	c   net.Conn
	r   *bufio.Reader
	req []byte
}

func dialRaw(base string, req []byte) (*rawClient, error) {
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return nil, err
	}
	return &rawClient{c, bufio.NewReader(c), req}, nil
}

// rawRequest is the tools/call the hand-written client sends.
func rawRequest() []byte {
	return fmt.Appendf(nil, "POST /mcp HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(rawCall), rawCall)
}

// libraryRequest is the tools/call as mcp-go's streamable client sends
// it to base in session sid, byte for byte (as read off the wire): the
// hand-written client sending it carries the library's request without
// the library's load. Its Host is base's, as the library's would be:
// mcp-go's server answers a loopback request naming another host with a
// 403 (DNS rebinding), at once.
func libraryRequest(base, sid string) []byte {
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping_tool"}}`
	return fmt.Appendf(nil, "POST /mcp HTTP/1.1\r\nHost: %s\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: %d\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: %s\r\nAccept-Encoding: gzip\r\n\r\n%s", strings.TrimPrefix(base, "http://"), len(call), sid, call)
}

func (rc *rawClient) call() (time.Duration, error) {
	t0 := time.Now()
	if _, err := rc.c.Write(rc.req); err != nil {
		return 0, err
	}
	// a floor answered with a refusal is no floor: every call must be
	// the tool's result
	if st, err := rc.r.Peek(len("HTTP/1.1 200")); err != nil || string(st) != "HTTP/1.1 200" {
		return 0, fmt.Errorf("answered %q, not 200 (%v)", st, err)
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
// differences); req is the request sent through each base.
func rawTimes(n int, req func(base string) []byte, bases ...string) ([]time.Duration, error) {
	var cs []*rawClient
	for _, b := range bases {
		c, err := dialRaw(b, req(b))
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

// rawPaths times n hand-written calls (req is each base's request)
// directly to a server and through the processes beside it, in the
// order up, floor, alone, relayed, told as startRelays names them, and
// measures the CPU and context switches per call of those processes
// (the hub's and the listener's after the relayed one's).
func rawPaths(n int, req func(base string) []byte, pids map[string]int, hubPid, listenerPid int, up, floor, alone, relayed, told string) (t []time.Duration, cpu []float64, sw [][2]float64, err error) {
	var m cpuMeter
	m.start(pids[floor], pids[alone], pids[relayed], hubPid, pids[told], listenerPid)
	if t, err = rawTimes(n, req, up, floor, alone, relayed, told); err != nil {
		return nil, nil, nil, err
	}
	return t, m.perCall(n), m.switchesPerCall(n), nil
}

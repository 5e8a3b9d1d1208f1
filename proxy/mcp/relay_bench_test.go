package mcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// BenchmarkRelayCall is the relay's own work for one tools/call, request
// and result, on the relay's goroutines: alone (no session); quiet, its
// lines to a session that takes them and does nothing (the relay's whole
// share); and with a vanilla hub in this process. It is the CPU a call
// costs, not its latency (scripts/bench-runtime has that).
func BenchmarkRelayCall(b *testing.B) {
	const file = `def apply_discount(price, percent):\n    return price * (100 - percent) / 100\n`
	res := func(i int) []byte { return benchResult(i, file) }
	b.Run("alone", func(b *testing.B) {
		r := NewRelay(nil, &Classifier{Root: "/ws"}, nil)
		b.ReportAllocs()
		for i := range b.N {
			r.FromClient(benchRequest(i))
			r.FromServer(res(i))
		}
	})
	// the relay's side of a session: a real client, to a socket whose far
	// end only answers the first begin (not armed) and drains the rest;
	// the read of a short file, and of one of 12 KiB (whose text the relay
	// tells the hub whole)
	for _, read := range []struct {
		name, text string
		structured bool // the text in structuredContent too, as the filesystem server sends it
	}{{"quiet", file, false}, {"quiet-12KiB", strings.Repeat(file, 150), false}, {"quiet-12KiB-structured", strings.Repeat(file, 150), true}} {
		res := func(i int) []byte { return benchResult(i, read.text) }
		if read.structured {
			res = func(i int) []byte {
				return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}],"structuredContent":{"content":"%[2]s"}}}`, i, read.text)
			}
		}
		b.Run(read.name, func(b *testing.B) {
			r := NewRelay(drainingHub(b), &Classifier{Root: "/ws"}, nil)
			var later Later
			r.FromClient(benchRequest(0))
			r.FromServerLater("", res(0), &later)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				// as the stdio relay: the result out first, then read
				r.FromClient(benchRequest(i + 1))
				r.FromServerFirst("", res(i+1), &later)
				later.Send()
			}
		})
	}
	b.Run("hub", func(b *testing.B) {
		_, sock, _ := sessiontest.Serve(b, "../../examples/tasks/py-discount", policy.Vanilla)
		c, err := session.Dial(sock)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		r := NewRelay(c, &Classifier{Root: "/ws"}, nil)
		// as the relays run: each call's end sent once its result is
		// out, on the same goroutine (FromServer's goroutine a call
		// piled up calls waiting on the client, whose stacks each
		// collection then scanned)
		var later Later
		b.ReportAllocs()
		for i := range b.N {
			r.FromClient(benchRequest(i))
			r.FromServerLater("", res(i), &later)
			later.Send()
		}
		r.Wait()
	})
}

// benchRequest is the relay benchmarks' call: a read of one file, id i.
func benchRequest(i int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/ws/pricing.py"}}}`, i)
}

// benchResult is its result, id i, showing text (JSON-escaped already).
func benchResult(i int, text string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`, i, text)
}

// drainingHub is a real hub client to a socket whose far end only
// answers the first begin (not armed) and drains the rest: the relay's
// side of a session, alone.
func drainingHub(b *testing.B) *session.Client {
	sock := filepath.Join(b.TempDir(), "drain.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		r := bufio.NewReader(c)
		r.ReadBytes('\n')
		io.WriteString(c, `{"ok":true,"id":1,"armed":false}`+"\n")
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if len(line) < 100 && bytes.Contains(line, []byte(`"op":"status"`)) {
				io.WriteString(c, `{"ok":true}`+"\n") // Close's last call
			}
		}
	}()
	c, err := session.Dial(sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkRelayCallCold is BenchmarkRelayCall's alone and quiet with
// the caches filled by other work before each call, as in a run: an
// agent's calls come seconds apart, and the client, the server and the
// model's client run in between. ns/call is the relay's work on a call's
// way (the request's before it goes on, the result's before it is
// written; what is sent after the result, later, is not timed), without
// the scheduling that moves the bench's figures; ns/op counts the filling
// too. Here that is 9 to 26 µs, against 1.3 to 3.6 warm (the -warm cases).
// ns/prep is what is done once the request has gone on, while the
// server works (its end's events, a told call's begin); ns/after is what
// is done after the result with a hub: the result read and the call's
// end written to the hub.
func BenchmarkRelayCallCold(b *testing.B) {
	res := func(i int) []byte { return benchResult(i, `def f():\n    pass\n`) }
	for _, c := range []struct {
		name string
		hub  bool
		fill int
	}{{"alone-warm", false, 0}, {"alone", false, 64 << 20}, {"quiet-warm", true, 0}, {"quiet", true, 64 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			other := make([]byte, c.fill) // 64 MiB: past any last-level cache here
			var hub Hub
			if c.hub {
				hub = drainingHub(b)
			}
			r := NewRelay(hub, &Classifier{Root: "/ws"}, nil)
			var later, sent Later
			r.FromClient(benchRequest(0)) // the first begin learns nothing can fire
			r.FromServerFirst("", res(0), &later)
			later.Send()
			var spent, prep, after time.Duration
			for i := range b.N {
				q, s := benchRequest(i+1), res(i+1)
				for j := 0; j < len(other); j += 64 {
					other[j]++
				}
				t0 := time.Now()
				r.FromClientLater("", q, &sent)
				t1 := time.Now()
				sent.Send() // while the server works
				t2 := time.Now()
				r.FromServerFirst("", s, &later)
				t3 := time.Now()
				later.Send()
				spent, prep, after = spent+t1.Sub(t0)+t3.Sub(t2), prep+t2.Sub(t1), after+time.Since(t3)
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), "ns/call")
			if c.hub {
				b.ReportMetric(float64(prep.Nanoseconds())/float64(b.N), "ns/prep")
				b.ReportMetric(float64(after.Nanoseconds())/float64(b.N), "ns/after")
			}
		})
	}
}

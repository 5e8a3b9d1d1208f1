package session_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/rawfd"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// BenchmarkCommand is what the hub adds to each command a shim runs: a
// begin and an end over the socket, from a client, as the shim sends
// them. With a watcher each call also drains the watcher's event queue
// (watch.Sync).
func BenchmarkCommand(b *testing.B) {
	for _, c := range []struct {
		name string
		opts func(b *testing.B) []sessiontest.Option
	}{
		{"hub", func(*testing.B) []sessiontest.Option { return nil }},
		{"watched", func(*testing.B) []sessiontest.Option { return []sessiontest.Option{sessiontest.Watched()} }},
		{"watched+recorded", func(b *testing.B) []sessiontest.Option {
			return []sessiontest.Option{sessiontest.Watched(), sessiontest.Recorded(trajectoryFile(b))}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			_, sock, _ := sessiontest.Serve(b, example, policy.Vanilla, c.opts(b)...)
			cl, err := session.Dial(sock)
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			for b.Loop() {
				id, err := cl.Begin(session.Begin{Command: "true", Cwd: "."})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := cl.End(id, session.End{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// trajectoryFile is a recorder writing a file, as a run's hub records
// (through quietio, as Start opens it): a recorder into memory would not
// show what each event's write costs.
func trajectoryFile(b *testing.B) *trajectory.Writer {
	f, err := os.Create(filepath.Join(b.TempDir(), "trajectory.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	w, err := trajectory.NewWriter(rawfd.Writer(f), trajectory.Header{})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkQuietCall is what a relayed tool call costs the hub once
// nothing can fire: a begin and an end of one line each, unanswered
// (BeginQuiet, EndQuiet), or a read told in one line once it is over
// (Told), as the MCP relay sends them, watched and recorded. The client does not wait, so the rate is the hub's: its
// parse, its watcher's drain and its recording of each call.
func BenchmarkQuietCall(b *testing.B) {
	_, sock, _ := sessiontest.Serve(b, example, policy.Vanilla, sessiontest.Watched(), sessiontest.Recorded(trajectoryFile(b)))
	cl, err := session.Dial(sock)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	end := session.End{Output: `{"path":"/ws/src/discount.py","content":"def discount(p):\n    return p * 0.9\n"}`,
		Events: []event.Event{{Kind: event.Read, Source: "mcp", Actor: event.Agent, Tool: "read_text_file",
			Scopes: []event.Scope{event.FileScope("src/discount.py")}}}}
	begin := session.Begin{Command: `mcp read_text_file {"path":"/ws/src/discount.py"}`, Source: "mcp"}
	b.Run("begun", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			key := "mcp-" + strconv.Itoa(i)
			i++
			cl.BeginQuiet(begin, key)
			cl.EndQuiet(key, end)
		}
		if _, err := cl.Status(); err != nil { // every line taken
			b.Fatal(err)
		}
	})
	// a read told once it is over (Told): one line
	b.Run("told", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cl.Told(begin, end)
		}
		if _, err := cl.Status(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkIdleBegin is a shim's begin answered by a hub that has sat
// idle, as an agent's commands find it: seconds apart, here 20 ms, past
// the 10 ms after which Go's runtime takes a thread that has waited in
// accept for one a goroutine ran on without a break. Each round dials,
// sends the begin and reads its answer (timed), then tells the end and
// hangs up (not timed), as the shim does.
// Run "admitted", the hub admits only this test's own executable, as a
// run's hub admits only the shim: the peer's credentials are checked on
// every connection.
func BenchmarkIdleBegin(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("open", func(b *testing.B) { idleBegins(b) })
	b.Run("admitted", func(b *testing.B) { idleBegins(b, session.WithClients(self)) })
}

func idleBegins(b *testing.B, opts ...session.Option) {
	sock, _ := serveUnix(b, opts...)
	begin := []byte(`{"op":"begin","begin":{"command":"true","cwd":".","source":"shell"}}` + "\n")
	answer := make([]byte, 4096)
	for range b.N {
		b.StopTimer()
		time.Sleep(20 * time.Millisecond) // the idle being measured, not a wait for anything
		b.StartTimer()
		c, err := net.Dial("unix", sock)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Write(begin); err != nil {
			b.Fatal(err)
		}
		n, err := c.Read(answer)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var r struct{ ID int }
		if err := json.Unmarshal(answer[:n], &r); err != nil || r.ID == 0 {
			b.Fatalf("answer %q: %v", answer[:n], err)
		}
		fmt.Fprintf(c, `{"op":"end","id":%d,"noreply":true,"end":{"exit":0}}`+"\n", r.ID)
		c.Close()
		b.StartTimer()
	}
}

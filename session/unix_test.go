package session_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
)

// serveUnix serves a bare hub over a fresh workspace on a UnixListener;
// stop ends serving and returns what ServeUnix returned.
func serveUnix(t testing.TB, opts ...session.Option) (sock string, stop func() error) {
	t.Helper()
	h, err := session.New(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(t.TempDir(), "hub.sock")
	l, err := session.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.ServeUnix(ctx, l) }()
	var once sync.Once
	var served error
	stop = func() error {
		once.Do(func() { cancel(); served = <-done })
		return served
	}
	t.Cleanup(func() { stop() })
	return sock, stop
}

// TestServeUnixLines: a bad line is answered with an error naming it and
// the client stays connected; many clients at once each get their own
// answers, while clients that connected and said nothing, or half a
// line, hold on to their threads.
func TestServeUnixLines(t *testing.T) {
	sock, _ := serveUnix(t)
	for _, said := range []string{"", "{\"op\":"} {
		silent, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer silent.Close()
		io.WriteString(silent, said)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	io.WriteString(c, "{\"op\":\"status\"}\nnot json\n{\"op\":\"nope\"}\n{\"op\":\"status\"}\n")
	var got []string
	for range 4 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimSpace(line))
	}
	if !strings.Contains(got[0], `"ok":true`) || !strings.Contains(got[1], `"error":"line 2:`) ||
		!strings.Contains(got[2], `"error":"line 3: field \"op\": unknown \"nope\""`) || !strings.Contains(got[3], `"ok":true`) {
		t.Errorf("answers:\n%s", strings.Join(got, "\n"))
	}

	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			c, err := session.Dial(sock)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			id, err := c.Begin(session.Begin{Command: "true"})
			if err == nil {
				_, err = c.End(id, session.End{})
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestServeUnixStops: ending serving hangs up on a client still connected
// (its threads wait in the kernel, which a close alone would not wake), and
// ServeUnix returns without error.
func TestServeUnixStops(t *testing.T) {
	sock, stop := serveUnix(t)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "{\"op\":\"status\"}\n")
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Errorf("ServeUnix: %v", err)
	}
	if _, err := r.ReadString('\n'); err != io.EOF {
		t.Errorf("client after stop: %v, want EOF", err)
	}
	if _, err := net.Dial("unix", sock); err == nil {
		t.Error("socket still accepts after stop")
	}
}

// TestServeUnixStopsStayingClient: a client that stayed through its
// first end (a relay: its connection then waits in Go's poller) is still
// served, and is hung up on when serving ends.
func TestServeUnixStopsStayingClient(t *testing.T) {
	sock, stop := serveUnix(t)
	c, err := session.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 3 { // the first end decides it stays; the rest are served after
		id, err := c.Begin(session.Begin{Command: fmt.Sprintf("call %d", i), Source: "mcp"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.End(id, session.End{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("ServeUnix: %v", err)
	}
	if _, err := c.Status(); err == nil {
		t.Error("a staying client still answered after serving stopped")
	}
}

// TestUnixListenerClosedFirst: a listener closed before it is served is
// released, and serving it is refused.
func TestUnixListenerClosedFirst(t *testing.T) {
	h, _ := session.New(t.TempDir())
	l, err := session.ListenUnix(filepath.Join(t.TempDir(), "hub.sock"))
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := h.ServeUnix(context.Background(), l); err == nil {
		t.Error("served a closed listener")
	}
	if _, err := session.ListenUnix(filepath.Join(t.TempDir(), "x", "hub.sock")); err == nil || !strings.Contains(err.Error(), "bind") {
		t.Errorf("listen in a missing directory: %v", err)
	}
}

// TestKilledShimAbandoned: a shim killed mid-command (a timeout's SIGKILL)
// never sends its end. When its connection closes, the hub ends the
// command itself, with what it changed so far and no exit; native edits
// after it are native again rather than folded into the next command.
func TestKilledShimAbandoned(t *testing.T) {
	ws := sessiontest.Workspace(t, example)
	w := sessiontest.Watcher(t, ws)
	var traj bytes.Buffer
	rec, _ := trajectory.NewWriter(&traj, trajectory.Header{Task: "t"})
	h, err := session.New(ws, session.WithWatcher(w), session.WithRecorder(rec))
	if err != nil {
		t.Fatal(err)
	}
	l, err := session.ListenUnix(filepath.Join(t.TempDir(), "hub.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.ServeUnix(ctx, l) }()

	shim, err := session.Dial(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shim.Begin(session.Begin{Command: "echo x >> pricing.py; sleep 600", Cwd: ws}); err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(ws, "pricing.py"), "x\n")
	shim.Close() // killed: no end
	cancel()
	if err := <-served; err != nil { // every connection's goroutine has finished
		t.Fatal(err)
	}
	if s := h.Status(); s.Running != 0 {
		t.Fatalf("%d commands still running after their shim was gone", s.Running)
	}
	// a native write, then the next command
	os.WriteFile(filepath.Join(ws, "NOTES.md"), []byte("native\n"), 0o644)
	id, err := h.Begin(context.Background(), session.Begin{Command: "true", Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.End(context.Background(), id, session.End{}); err != nil {
		t.Fatal(err)
	}
	tr, err := trajectory.Read(bytes.NewReader(traj.Bytes()), "trajectory")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range tr.Events {
		line := string(ev.Kind) + " " + ev.Command
		if ev.Exit != nil {
			line += fmt.Sprintf(" exit %d", *ev.Exit)
		}
		for _, s := range ev.Scopes {
			line += " " + s.Path
		}
		if ev.Note != "" {
			line += " (" + ev.Note + ")"
		}
		got = append(got, line)
	}
	want := []string{
		"edit echo x >> pricing.py; sleep 600 exit -1 pricing.py (no end: the shell's connection to the hub closed first)",
		"edit echo x >> pricing.py; sleep 600 pricing.py",
		"edit  NOTES.md (native edit)",
		"run true exit 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trajectory:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(s)
}

// TestLineOverTheLimit: a line longer than the hub takes gets an error
// answer, and the connection goes on at the next line (split over many
// reads, and at the limit exactly).
func TestLineOverTheLimit(t *testing.T) {
	const limit = 100
	sock, _ := serveUnix(t, session.WithLineLimit(limit))
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	status := `{"op":"status"}`
	atLimit := status + strings.Repeat(" ", limit-len(status))
	go func() {
		io.WriteString(c, status+"\n")
		io.WriteString(c, `{"op":"status","x":"`+strings.Repeat("y", 100000)+"\"}\n")
		io.WriteString(c, atLimit+"\n"+atLimit+" \n"+status)
		c.(*net.UnixConn).CloseWrite()
	}()
	want := []string{`"ok":true`, `"error":"line 2: longer than the hub's limit of 100 bytes"`, `"ok":true`, `"error":"line 4: longer`, `"ok":true`}
	for i, w := range want {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
		if !strings.Contains(line, w) {
			t.Errorf("answer %d: %s, want %s", i+1, strings.TrimSpace(line), w)
		}
	}
}

// TestQuietCalls: a relay the hub told nothing can fire begins and ends
// its calls unanswered, by key: each becomes one action, in order, with
// its exit and its own events; a key is its connection's own, and an end
// under a key nobody began is no action.
func TestQuietCalls(t *testing.T) {
	var traj bytes.Buffer
	rec, _ := trajectory.NewWriter(&traj, trajectory.Header{Task: "t"})
	sock, stop := serveUnix(t, session.WithRecorder(rec))
	a, err := session.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	b, err := session.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	if _, armed, err := a.BeginArmed(session.Begin{Command: "mcp list", Source: "mcp"}); err != nil || armed {
		t.Fatalf("a bare hub is armed (%v) or failed: %v", armed, err)
	}
	read := []event.Event{{Kind: event.Read, Source: "mcp", Scopes: []event.Scope{event.FileScope("a.py")}}}
	a.BeginQuiet(session.Begin{Command: "mcp read_file a.py", Source: "mcp"}, "k1")
	b.BeginQuiet(session.Begin{Command: "mcp read_file b.py", Source: "mcp"}, "k1") // the same key, another connection
	a.EndQuiet("k1", session.End{Exit: 0, Events: read})
	b.EndQuiet("k1", session.End{Exit: 3})
	a.EndQuiet("nobody", session.End{Exit: 9})
	if _, err := a.Messages("file"); err != nil { // a round trip: the lines before it are done
		t.Fatal(err)
	}
	if _, err := b.Messages("file"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	stop()
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(traj.String()), "\n")[1:] {
		var ev event.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Actor == event.Agent && ev.Exit != nil {
			// an adapter's own events name the action by their scopes
			got[cmp.Or(ev.Command, fmt.Sprint(ev.Scopes))] = fmt.Sprintf("%s exit %d %v", ev.Kind, *ev.Exit, ev.Scopes)
		}
	}
	want := map[string]string{
		"[a.py]":             "read exit 0 [a.py]",
		"mcp read_file b.py": "run exit 3 []",
	}
	for cmd, w := range want {
		if got[cmd] != w {
			t.Errorf("%s: %q, want %q (all: %v)", cmd, got[cmd], w, got)
		}
	}
	for cmd := range got {
		if strings.Contains(cmd, "nobody") {
			t.Errorf("an end under an unknown key became an action: %v", got)
		}
	}
}

// TestClientCannotForge: a client reports the agent's actions and relays
// traffic, nothing else: an event only the hub makes (a user's edit, an
// intervention, a verdict) is refused with the field that says so, on
// either line that can carry one, and the connection goes on.
func TestClientCannotForge(t *testing.T) {
	sock, _ := serveUnix(t)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	ask := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(c, line+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(got)
	}
	var id struct{ ID int }
	json.Unmarshal([]byte(ask(`{"op":"begin","begin":{"command":"ls"}}`)), &id)
	for _, tc := range []struct{ line, want string }{
		{`{"op":"observe","event":{"kind":"intervention","actor":"agent"}}`, `field \"event.kind\": a client reports the agent's reads, edits, tests and runs, not \"intervention\"`},
		{`{"op":"observe","event":{"kind":"edit","actor":"user"}}`, `field \"event.actor\": a client reports only the agent's actions, not \"user\"'s`},
		{`{"op":"observe","event":{"kind":"edit","attempt":{"n":1}}}`, `field \"event.attempt\": interventions are the hub's`},
		{fmt.Sprintf(`{"op":"end","id":%d,"end":{"events":[{"kind":"read"},{"kind":"verdict"}]}}`, id.ID), `field \"end.events[1].kind\": a client reports the agent's reads, edits, tests and runs, not \"verdict\"`},
		{fmt.Sprintf(`{"op":"end","id":%d,"end":{"events":[{"kind":"edit","actor":"user"}]}}`, id.ID), `field \"end.events[0].actor\"`},
		{`{"op":"record","event":{"kind":"edit"}}`, `field \"event.kind\": a client records only traffic, not \"edit\"`},
	} {
		if got := ask(tc.line); !strings.Contains(got, tc.want) || strings.Contains(got, `"ok":true`) {
			t.Errorf("%s\n answered %s\n want an error with %s", tc.line, got, tc.want)
		}
	}
	// refused, the command is still running: its end is taken
	if got := ask(fmt.Sprintf(`{"op":"end","id":%d,"end":{"exit":0}}`, id.ID)); !strings.Contains(got, `"ok":true`) {
		t.Errorf("the end after the refusals: %s", got)
	}
}

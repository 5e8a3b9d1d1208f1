package mcp

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/session"
)

// quietRecorder is a hub that says nothing can fire and records what it
// is told.
type quietRecorder struct {
	mu    sync.Mutex
	ended []string // the keys (or ids) of the ends it got
	said  []string // every begin, end and told call, in order
}

func (q *quietRecorder) Begin(session.Begin) (int, error) { return 1, nil }
func (q *quietRecorder) End(int, session.End) ([]session.Message, error) {
	return nil, nil
}
func (q *quietRecorder) BeginArmed(session.Begin) (int, bool, error) { return 1, false, nil }
func (q *quietRecorder) EndAsync(id int, _ session.End)              { q.end("id") }
func (q *quietRecorder) BeginQuiet(b session.Begin, key string)      { q.say("begin " + b.Command) }
func (q *quietRecorder) EndQuiet(key string, _ session.End)          { q.end(key) }
func (q *quietRecorder) Told(b session.Begin, e session.End) {
	q.say(fmt.Sprintf("told %s (%d events)", b.Command, len(e.Events)))
}

func (q *quietRecorder) end(k string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = append(q.ended, k)
	q.said = append(q.said, "end "+k)
}

func (q *quietRecorder) say(s string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.said = append(q.said, s)
}

// TestToldReads: once nothing can fire, a call of a tool that cannot
// change a file is told to the hub in one line after its result; one
// that can (or that the classifier only guesses at) is begun before it
// goes on, so that what the server writes is the call's.
func TestToldReads(t *testing.T) {
	calls := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`, // learns quiet
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.py"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.py","content":"x"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"save","arguments":{"path":"a.py"}}}`,
	}
	var script strings.Builder
	for i := range calls {
		fmt.Fprintf(&script, `read l; echo '{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}]}}'; `, i+1)
	}
	hub := &quietRecorder{}
	r := NewRelay(hub, &Classifier{Root: t.TempDir()}, nil)
	if _, err := RunStdio(exec.Command("bash", "-c", script.String()), r, strings.NewReader(strings.Join(calls, "\n")+"\n"), io.Discard); err != nil {
		t.Fatal(err)
	}
	r.Wait()
	hub.mu.Lock()
	defer hub.mu.Unlock()
	// the two directions run at once: each call's own lines are in
	// order (a begin is said before the request goes on), not the calls'
	// among themselves
	want := []string{
		"end id", // the first call, begun armed, learns nothing can fire
		`told mcp read_text_file {"path":"a.py"} (1 events)`,
		`begin mcp write_file {"content":"x","path":"a.py"}`, "end mcp-1",
		`begin mcp save {"path":"a.py"}`, "end mcp-2",
	}
	before := func(a, b string) bool { return slices.Index(hub.said, a) < slices.Index(hub.said, b) }
	inOrder := before(want[2], want[3]) && before(want[4], want[5])
	got := slices.Clone(hub.said)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || !inOrder {
		t.Errorf("the hub was told:\n%s\nwant:\n%s", strings.Join(hub.said, "\n"), strings.Join(want, "\n"))
	}
}

// failingAfter accepts n writes, then fails every one.
type failingAfter struct{ n int }

func (f *failingAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("the client is gone")
	}
	f.n--
	return len(p), nil
}

// TestEndAfterFailedWrite: a call whose result could not be written to
// the client (it went away) is still ended at the hub, not left running
// until the connection's end abandons it.
func TestEndAfterFailedWrite(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ping","arguments":{}}}`
	const result = `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"pong"}]}}`
	req := strings.ReplaceAll(call, "%d", "1") + "\n" + strings.ReplaceAll(call, "%d", "2") + "\n"
	// a server that answers both calls, one line each
	script := "read a; echo '" + strings.ReplaceAll(result, "%d", "1") + "'; read b; echo '" + strings.ReplaceAll(result, "%d", "2") + "'"
	hub := &quietRecorder{}
	r := NewRelay(hub, &Classifier{Root: t.TempDir()}, nil)
	if _, err := RunStdio(exec.Command("bash", "-c", script), r, strings.NewReader(req), &failingAfter{n: 1}); err != nil {
		t.Fatal(err)
	}
	hub.mu.Lock()
	defer hub.mu.Unlock()
	// the first call ends unanswered (EndAsync, from a goroutine: in either
	// order); the second, begun quietly, ends by its key although its
	// result's write failed
	slices.Sort(hub.ended)
	if got := strings.Join(hub.ended, ","); got != "id,mcp-1" {
		t.Errorf("ends the hub got: %q, want id,mcp-1", got)
	}
}

// TestToldUnreadableArguments: a call told of once it is over whose
// arguments encoding/json cannot read (a number past float64) is relayed
// and not reported, as one begun before it goes on is: the log says so
// once its arguments are read, after its result has gone.
func TestToldUnreadableArguments(t *testing.T) {
	calls := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`, // learns quiet
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.py","head":1e400}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"b.py"}}}`,
	}
	var script strings.Builder
	for i := range calls {
		fmt.Fprintf(&script, `read l; echo '{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}]}}'; `, i+1)
	}
	hub := &quietRecorder{}
	var log, out strings.Builder
	r := NewRelay(hub, &Classifier{Root: t.TempDir()}, &log)
	if _, err := RunStdio(exec.Command("bash", "-c", script.String()), r, strings.NewReader(strings.Join(calls, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	r.Wait()
	if n := strings.Count(out.String(), `"text":"ok"`); n != 3 {
		t.Errorf("the client got %d results, want 3:\n%s", n, out.String())
	}
	hub.mu.Lock()
	defer hub.mu.Unlock()
	// the first call's end goes from a goroutine: in either order
	want := []string{"end id", `told mcp read_text_file {"path":"b.py"} (1 events)`}
	if got := slices.Sorted(slices.Values(hub.said)); !slices.Equal(got, want) {
		t.Errorf("the hub was told:\n%s\nwant:\n%s", strings.Join(hub.said, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(log.String(), "tools/call params:") {
		t.Errorf("the log does not say the call went unreported:\n%s", log.String())
	}
}

package mcp

import (
	"errors"
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
}

func (q *quietRecorder) Begin(session.Begin) (int, error) { return 1, nil }
func (q *quietRecorder) End(int, session.End) ([]session.Message, error) {
	return nil, nil
}
func (q *quietRecorder) BeginArmed(session.Begin) (int, bool, error) { return 1, false, nil }
func (q *quietRecorder) EndAsync(id int, _ session.End)              { q.end("id") }
func (q *quietRecorder) BeginQuiet(session.Begin, string)            {}
func (q *quietRecorder) EndQuiet(key string, _ session.End)          { q.end(key) }

func (q *quietRecorder) end(k string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = append(q.ended, k)
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

package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/session"
)

// toldEvents is a quiet hub that keeps the events of each call told.
type toldEvents struct {
	quietRecorder
	events [][]event.Event
}

func (h *toldEvents) Told(b session.Begin, e session.End) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e.Events)
}

// TestEndPreparedWhileTheServerWorks: what a call's end reports that its
// request alone decides is made once the request has gone on (when its
// owner sends what the request left, as RunStdio and the HTTP relay do
// after each write), not after the result: the lines a tail read names
// are the file's when the server got the request.
func TestEndPreparedWhileTheServerWorks(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a.py")
	if err := os.WriteFile(file, []byte(strings.Repeat("x\n", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	hub := &toldEvents{}
	r := NewRelay(hub, &Classifier{Root: root}, nil)
	call := func(request, result string, meanwhile func()) {
		var sent, later Later
		r.FromClientLater("", []byte(request), &sent)
		sent.Send() // the request is on its way
		meanwhile()
		r.FromServerFirst("", []byte(result), &later)
		later.Send()
		r.Wait()
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, func() {}) // learns nothing can fire
	call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"`+file+`","tail":2}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x\nx\n"}]}}`, func() {
			// the file grows after the server has read it
			if err := os.WriteFile(file, []byte(strings.Repeat("x\n", 20)), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	hub.mu.Lock()
	defer hub.mu.Unlock()
	if len(hub.events) != 1 || len(hub.events[0]) != 1 || len(hub.events[0][0].Scopes) != 1 {
		t.Fatalf("told events: %+v, want one read", hub.events)
	}
	if got, want := hub.events[0][0].Scopes[0], event.LineScope("a.py", 9, 10); !reflect.DeepEqual(got, want) {
		t.Errorf("the read's scope: %+v, want %+v (the file as the server read it)", got, want)
	}
}

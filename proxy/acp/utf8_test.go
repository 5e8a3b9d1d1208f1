package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/proxy"
)

// recordingHub is a Hub that keeps the traffic events it is given, as
// the trajectory writer would write them.
type recordingHub struct {
	Hub
	lines [][]byte
}

func (h *recordingHub) Record(ev event.Event) {
	b, _ := json.Marshal(ev)
	h.lines = append(h.lines, b)
}

// TestInvalidUTF8StaysJSON: a peer's message with bytes that are not
// UTF-8 passes through unchanged, and every line of the trajectory and of
// the traffic log is valid JSON in valid UTF-8.
func TestInvalidUTF8StaysJSON(t *testing.T) {
	var toAgent, toEditor, traffic bytes.Buffer
	hub := &recordingHub{}
	r := NewRelay(&toAgent, &toEditor, WithHub(hub), WithTraffic(&traffic))
	in := "{\"jsonrpc\":\"2.0\",\"method\":\"_x\",\"params\":{\"t\":\"bad \xff\xfe here\"}}\nnot json \xc3\x28\n"
	if err := proxy.Pipe(r.AgentWriter(), strings.NewReader(in), r.FromEditor); err != nil {
		t.Fatal(err)
	}
	if toAgent.String() != in {
		t.Errorf("relayed %q, want %q", toAgent.String(), in)
	}
	if len(hub.lines) != 2 {
		t.Fatalf("%d traffic events, want 2", len(hub.lines))
	}
	logged := bytes.Split(bytes.TrimSpace(traffic.Bytes()), []byte("\n"))
	for _, l := range append(hub.lines, logged...) {
		if !utf8.Valid(l) || !json.Valid(l) {
			t.Errorf("not valid UTF-8 JSON: %q", l)
		}
	}
}

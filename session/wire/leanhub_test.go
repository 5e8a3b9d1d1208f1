package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// FuzzParseRequest: whatever line the hub gets, the hand-written reader
// either declines it (encoding/json then reads it) or reads exactly what
// encoding/json reads.
func FuzzParseRequest(f *testing.F) {
	for _, req := range []Request{
		{Op: "begin", Begin: &Begin{Command: "sed -n '4,6p' a.py", Cwd: "/tmp/ws", Source: "shell"}},
		{Op: "end", ID: 3, End: &End{Exit: 130, Signal: "interrupt", Output: "l\u2028\x00\xff", Tail: "t", Elided: true, Bytes: 1 << 20}},
		{Op: "end", ID: 1, End: &End{Events: []event.Event{{Kind: event.Read}}}, NoReply: true},
		{Op: "end", ID: 2, End: &End{Output: "x", Channel: UnconfirmedChannel + "hook"}},
		{Op: "end", ID: 4, End: &End{Exit: -1, Unseen: true}},
		{Op: "end", Key: "mcp-1", NoReply: true, End: &End{Output: "x", Channel: "tool-output", Events: []event.Event{
			{Kind: event.Read, Source: "mcp", Tool: "read_text_file", Scopes: []event.Scope{event.FileScope("a.py"), event.LineScope("b.py", 3, 9)}},
			{Kind: event.Edit, Actor: event.Agent, Command: "mcp edit_file", Text: "t", Note: "n", Diff: "d", Action: 2, Seq: 7}}}},
		{Op: "end", NoReply: true, Begin: &Begin{Command: "mcp read_text_file {}", Source: "mcp"}, End: &End{Output: "x", Events: []event.Event{{Kind: event.Read, Tool: "read_text_file"}}}},
	} {
		b, _ := json.Marshal(req)
		f.Add(b)
		if lean, ok := leanLine(req); ok {
			f.Add(lean)
		}
	}
	for _, s := range []string{
		`{"OP":"begin","Begin":{"Command":"x"},"begin":{"cwd":"/"}}`,
		`{"op":"end","id":1.5,"end":{}}`, `{"op":"end","id":01}`, `{"op":"begin","begin":null}`,
		`{"op":"end","end":{"events":null,"exit":-0}}`, `{"op":"end","end":{"events":[]}}`,
		`{"op":"end","end":{"events":[null,{"SCOPES":[null,{"Path":"a","start":2}],"kind":"read","x":[1]}]}}`,
		`{"op":"end","end":{"events":[{}],"events":[{"kind":"edit"}]}}`, `{"op":"end","end":{"events":[{"step":1}]}}`,
		`{"op":"end","end":{"events":[{"scopes":[],"scopes":[{"end":3}]}]}}`, `{"op":"end","end":{"events":[{"seq":1.0}]}}`,
		`{"op":"begin","\u017fource":"x"}`, `{"op":"status"}`, `{"op":"begin","event":{}}`, `[]`, `{"op":"begin"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, long := range []bool{false, true} {
			parseAsJSON(t, line, long)
		}
	})
}

// parseAsJSON checks that ParseRequest reads line as encoding/json does,
// long: padded past ownedUpTo with spaces, to be lexed in place; and that
// what it read holds once the line's memory is written again, as the
// hub's reader reuses it.
func parseAsJSON(t *testing.T, line []byte, long bool) {
	t.Helper()
	if long {
		line = append(bytes.Clone(line), bytes.Repeat([]byte(" "), ownedUpTo)...)
	}
	var want Request
	jsonErr := json.Unmarshal(line, &want)
	reused := bytes.Clone(line)
	got, ok := ParseRequest(reused)
	for i := range reused {
		reused[i] = '?'
	}
	if !ok {
		return
	}
	if jsonErr != nil {
		t.Fatalf("read %s, which encoding/json refuses: %v", line, jsonErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s\nlean %+v\n std %+v", line, got, want)
	}
}

// FuzzAppendResponse: the hand-written answers read back as encoding/json's
// own lines for the same answers do.
func FuzzAppendResponse(f *testing.F) {
	f.Add(true, "", 3, true, 1, "Out-of-range discounts <should> be \"clamped\" & \u2028\xff\n")
	f.Add(false, "line 2: unknown command 9", 0, false, 0, "")
	f.Fuzz(func(t *testing.T, ok bool, errText string, id int, armed bool, order int, text string) {
		r := Response{OK: ok, Error: errText, ID: id, Armed: armed}
		if order != 0 {
			r.Messages = []Message{{Order: order, Text: text}, {Order: order + 1, Text: errText}}
		}
		lean, done := AppendResponse(nil, r)
		if !done {
			t.Fatal("not written")
		}
		std, _ := json.Marshal(r)
		var got, want Response
		if err := json.Unmarshal(lean, &got); err != nil {
			t.Fatalf("%s: %v", lean, err)
		}
		json.Unmarshal(std, &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("lean %s\n std %s", lean, std)
		}
	})
}

// TestParseRequestEvents: a relay's end, with the events its classifier
// makes, is read without encoding/json; an event with more is not.
func TestParseRequestEvents(t *testing.T) {
	end := Request{Op: "end", Key: "mcp-3", NoReply: true, End: &End{Output: "ok", Events: []event.Event{
		{Kind: event.Read, Source: "mcp", Tool: "read_text_file", Scopes: []event.Scope{event.LineScope("a.py", 1, 4)}}}}}
	line, ok := leanLine(end)
	if !ok {
		t.Fatal("the relay's end is not written lean")
	}
	got, ok := ParseRequest(line)
	if !ok || !reflect.DeepEqual(got, end) {
		t.Errorf("read %s as %+v, %v", line, got, ok)
	}
	step := 1
	end.End.Events[0].Step = &step
	b, _ := json.Marshal(end)
	if _, ok := ParseRequest(b); ok {
		t.Errorf("read an event with a step without encoding/json: %s", b)
	}
}

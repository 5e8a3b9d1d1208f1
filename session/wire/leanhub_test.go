package wire

import (
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
		`{"op":"begin","\u017fource":"x"}`, `{"op":"status"}`, `{"op":"begin","event":{}}`, `[]`, `{"op":"begin"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := ParseRequest(line)
		if !ok {
			return
		}
		var want Request
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("read %s, which encoding/json refuses: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s\nlean %+v\n std %+v", line, got, want)
		}
	})
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

package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// FuzzLeanLine: the hand-written begin and end lines read back (with
// encoding/json, as the hub reads them) exactly as encoding/json's own
// lines for the same requests do: any command, path or output, invalid
// UTF-8 and control characters included.
// leanLine is appendLeanLine in a line of its own, as the tests read it.
func leanLine(req Request) (line []byte, ok bool) { return appendLeanLine(nil, &req) }

func FuzzLeanLine(f *testing.F) {
	f.Add("sed -n '4,6p' pricing.py", "/tmp/ws", "line \"one\"\n\ttwo\\", "", 0, false, 0)
	f.Add("printf '\\x00\\xff'", "", "\x00\x1f\x7f\xff\xfe <&> \u2028\u2029 ü", "SIGINT", 130, true, 1<<20)
	f.Fuzz(func(t *testing.T, command, cwd, output, signal string, exit int, elided bool, bytes int) {
		// an adapter's classification, as a relay ends a tool call with it
		evs := []event.Event{{Seq: int64(bytes), Kind: event.Kind(signal), Source: cwd, Actor: event.Actor(command), Tool: output,
			Command: command, Text: cwd, Note: signal, Diff: output, Action: exit,
			Scopes: []event.Scope{{Path: cwd, Start: exit, End: bytes, Precision: event.Precision(signal)}, {}}}, {}}
		for _, req := range []Request{
			{Op: "begin", Begin: &Begin{Command: command, Cwd: cwd, Source: signal}},
			{Op: "end", ID: exit / 3, End: &End{Exit: exit, Signal: signal, Output: output, Tail: command, Elided: elided, Bytes: bytes}},
			{Op: "end", Key: "k" + cwd, NoReply: true, End: &End{Exit: exit, Output: output, Channel: signal, Events: evs}},
			// a call told once it is over (Told)
			{Op: "end", NoReply: true, Begin: &Begin{Command: command, Cwd: output, Source: signal}, End: &End{Exit: exit, Output: output, Events: evs}},
		} {
			lean, ok := leanLine(req)
			if !ok {
				t.Fatalf("%s: not written lean", req.Op)
			}
			std, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			var got, want Request
			if err := json.Unmarshal(lean, &got); err != nil {
				t.Fatalf("%s: the lean line does not parse: %v\n%s", req.Op, err, lean)
			}
			json.Unmarshal(std, &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\nlean %s\n std %s", req.Op, lean, std)
			}
		}
		// told with its output as the JSON string a server wrote
		// (ToldText): read back as told with the text, lean or not
		quoted, _ := json.Marshal(output) // escapes <, > and &, as jsonout does not
		told := Request{Op: "end", NoReply: true, Begin: &Begin{Command: command}, End: &End{Exit: exit, Events: evs}}
		std, _ := json.Marshal(Request{Op: "end", NoReply: true, Begin: &Begin{Command: command}, End: &End{Exit: exit, Output: output, Events: evs}})
		var want Request
		json.Unmarshal(std, &want)
		raw := told
		raw.outputJSON = quoted
		lean, ok := leanLine(raw)
		if !ok {
			t.Fatal("told text: not written lean")
		}
		own := own(&raw) // as a line that is not lean is written
		for _, line := range [][]byte{lean, must(json.Marshal(own))} {
			var got Request
			if err := json.Unmarshal(line, &got); err != nil {
				t.Fatalf("told text: the line does not parse: %v\n%s", err, line)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("told text:\nline %s\n std %s", line, std)
			}
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestLeanLineScope: only the shim's calls are written by hand.
func TestLeanLineScope(t *testing.T) {
	for _, req := range []Request{
		{Op: "end", End: &End{Events: []event.Event{{Step: new(int)}}}},
		{Op: "end", End: &End{Events: []event.Event{{Raw: []byte("{}")}}}},
		{Op: "observe"},
		{Op: "begin", Begin: &Begin{}, NoReply: true},
	} {
		if _, ok := leanLine(req); ok {
			t.Errorf("%+v written lean", req)
		}
	}
}

// FuzzParseReply: whatever encoding/json reads as an answer, parseReply
// reads the same (an empty and a missing message list are alike).
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"ok":true,"id":1,"armed":true}`,
		`{"ok":true,"messages":[{"order":1,"text":"keep \"my\" change\n\u00fc\ud83d\ude00 \ud800x"}]}`,
		`{"ok":false,"error":"line 3: field \"end\": missing"}`,
		` { "OK" : true , "seq" : 12 , "status" : {"seq":5,"interventions":[{"order":1}]}, "x": [1, -2.5e3, null, false, "s"] } `,
		`{"ok":true,"messages":null,"id":null}`,
		"{\"ok\":true,\"messages\":[{\"text\":\"\xff\xfe\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var want reply
		if json.Unmarshal(line, &want) != nil {
			return
		}
		got, err := parseReply(line)
		if err != nil {
			t.Fatalf("encoding/json reads %q, parseReply: %v", line, err)
		}
		if len(got.Messages) == 0 && len(want.Messages) == 0 {
			got.Messages, want.Messages = nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	})
}

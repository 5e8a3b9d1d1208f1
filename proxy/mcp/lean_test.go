package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// encodingJSONToolCall is how the relay read a tools/call's params before
// it read them by hand: encoding/json, the arguments into an any.
func encodingJSONToolCall(params []byte) (tool string, argsText []byte, args map[string]any, err error) {
	var p struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments"`
	}
	err = json.Unmarshal(params, &p)
	args, _ = p.Arguments.(map[string]any)
	return p.Name, argsJSON(p.Arguments), args, err
}

// readToolCall is how the relay reads a call begun before it goes on:
// its tool and arguments (readTool), then their text (appendText); an
// error is encoding/json's.
func readToolCall(params json.RawMessage) (toolCall, []byte, error) {
	c, err := readTool(params)
	if err != nil {
		return toolCall{}, nil, err
	}
	text, err := c.appendText(nil)
	if err != nil {
		return toolCall{}, nil, err
	}
	return c, text, nil
}

// FuzzToolCall: the relay reads a tools/call's params (tool, the begin's
// text of its arguments, the arguments the classifier gets) as
// encoding/json reads them, and fails where encoding/json fails.
func FuzzToolCall(f *testing.F) {
	for _, s := range []string{
		`{"name":"read_text_file","arguments":{"path":"/ws/a.py","head":10}}`,
		`{"name":"t"}`, `{"name":"t","arguments":null}`, `null`, `{"Name":"t","ARGUMENTS":{"b":1,"a":[1,2]}}`,
		`{"name":"t","arguments":{"x":1},"arguments":{"y":"<&>"}}`, `{"name":5}`, `{"name":"t","arguments":{"n":1e400}}`,
		`{"name":"t","arguments":"text"}`, `{"name":"t","_meta":{"progressToken":1},"arguments":{"k":-0.0}}`,
		`{"nam\u0065":"t"}`, `{"ſname":"t"}`, `[]`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return
		}
		tool, text, args, err := encodingJSONToolCall(params)
		got, gotText, gotErr := readToolCall(params)
		if (err == nil) != (gotErr == nil) {
			t.Fatalf("%q: encoding/json says %v, the relay %v", params, err, gotErr)
		}
		if err != nil {
			return
		}
		if got.tool != tool || string(gotText) != string(text) || !reflect.DeepEqual(got.arguments(), args) {
			t.Fatalf("%q:\n got %q %s %v\nwant %q %s %v", params, got.tool, gotText, got.arguments(), tool, text, args)
		}
	})
}

// encodingJSONResult is how the relay read a result before it read
// results by hand.
func encodingJSONResult(result []byte, place placement) resultReading {
	r := resultReading{channel: place.channel(result)}
	var res toolResult
	if json.Unmarshal(result, &res) == nil {
		r.text, r.isError = res.text(), res.IsError
	}
	return r
}

// placements are the ways a tool's structuredContent takes a message.
var placements = []placement{{key: MessageKey}, {field: "text"}, {field: "content"}, {}}

// FuzzResultReading: the relay reads a result (its text, whether it is an
// error, its messages' channel) as encoding/json reads it, for every
// placement.
func FuzzResultReading(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"pong"}]}`,
		`{"content":[{"type":"text","text":"a"},{"type":"image","data":"x"},null,{"TYPE":"text","Text":"b"}],"isError":true}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"text":"y"}}`,
		`{"content":[],"structuredContent":{"content":5}}`, `{"structuredContent":null}`, `{"structuredcontent":{"a":1}}`,
		`{"structuredContent":[1]}`, `{"content":[{"type":"text","text":"a"}],"content":[{"type":"x"}]}`,
		`{"content":[{"type":5}]}`, `{"isError":"yes"}`, `null`, `[]`, `{"content":null,"isError":null}`,
		`{"structuredContent":{"text":null,"text":7}}`, `{"structuredContent":{"te\u0078t":"s"}}`,
		`{"content":[{"type":"text","text":"a\u00e9\n\ud83d\ude00\ud800 \"q\""}]}`, `{"content":[{"text":"x","type":"text","text":null}]}`,
		`{"content":[{"type":"text","text":"a"},{"type":"text","text":"\tb"}]}`, `{"content":[{"type":"text","text":""}]}`,
		`{"StructuredContent":{"a":1},"x":{"structuredContent":1}}`, `{"structuredContent":{"content":"a"},"STRUCTUREDCONTENT":[]}`,
	} {
		for i := range placements {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, result []byte, which uint8) {
		if !json.Valid(result) {
			return
		}
		place := placements[int(which)%len(placements)]
		want := encodingJSONResult(result, place)
		if got := readResult(result, place, false); got.raw != nil || !sameReading(got, want) {
			t.Fatalf("%q (%+v):\n got %+v\nwant %+v", result, place, got, want)
		}
		// kept raw, the text is the JSON string it decodes from, which
		// a hub line carries as it is
		got := readResult(result, place, true)
		if got.raw != nil {
			if got.text != "" || !json.Valid(got.raw) || got.raw[0] != '"' {
				t.Fatalf("%q: kept %q beside text %q", result, got.raw, got.text)
			}
			json.Unmarshal(got.raw, &got.text)
		}
		if !sameReading(got, want) {
			t.Fatalf("%q (%+v), kept raw:\n got %+v\nwant %+v", result, place, got, want)
		}
	})
}

// sameReading compares two readings but for raw.
func sameReading(a, b resultReading) bool {
	return a.text == b.text && a.isError == b.isError && a.channel == b.channel
}

// TestReadByHand: the results and params servers and agents send are
// read by hand, not left to encoding/json.
func TestReadByHand(t *testing.T) {
	for _, s := range []string{
		`{"name":"read_text_file","arguments":{"path":"/testbed/a.py","head":10}}`,
		`{"name":"edit_file","arguments":{"path":"/testbed/a.py","edits":[{"oldText":"a","newText":"b"}],"dryRun":false}}`,
	} {
		c, ok := leanTool([]byte(s))
		if _, byHand := fastjson.Canonical(nil, c.args); !ok || !byHand {
			t.Errorf("params %s: left to encoding/json", s)
		}
	}
	for _, s := range []string{
		`{"content":[{"type":"text","text":"Allowed directories:\n/testbed"}],"structuredContent":{"content":"Allowed directories:\n/testbed"}}`,
		`{"content":[{"type":"text","text":"pong"}],"isError":false}`,
	} {
		if _, ok := leanResult([]byte(s), placement{key: MessageKey}, false); !ok {
			t.Errorf("result %s: left to encoding/json", s)
		}
	}
}

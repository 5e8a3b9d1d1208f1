package proxy

import (
	"reflect"
	"testing"
)

// FuzzPeek: the fast envelope reader says what encoding/json says, for
// any line: the same fields, byte for byte, and the same refusals.
func FuzzPeek(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/ws/a.py"}}}`,
		`{"jsonrpc":"2.0","id":"x\"y","result":{"content":[{"type":"text","text":"a\nb}"}]}}`,
		`{"id":1,"error":{"code":-32601,"message":"no"}}`,
		`{"ID":2,"Method":"ping","id":3}`, `{"method":null,"id":null}`, `{"method":5}`, `{"method":"a\u0062"}`,
		`{"\u006dethod":"x"}`, `{"metHod":"x","method":"y"}`, `{"id":1.5e3 ,"result" : [ 1, {"a":"]"} ] }`,
		`{"method":"é"}`, `{"ſ":1}`, `{}`, ` {"id":1}`, `{"id":1}x`, `[1]`, `{"id":tru}`, `{"id":"\xff"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := Peek(line)
		want, wantOK := slowPeek(line)
		if len(line) == 0 || line[0] != '{' {
			wantOK, want = false, Envelope{}
		}
		if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nfast %v %+v\n std %v %+v", line, ok, got, wantOK, want)
		}
	})
}

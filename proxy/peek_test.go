package proxy

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/internal/fastjson"
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
		// reading the result as it is lexed changes no field; what is
		// read is the last result, as encoding/json reads it; a read
		// that fails leaves the envelope as it was
		var value any
		readAny := func(p fastjson.Lexer) (_ fastjson.Lexer, err error) { value, err = p.Any(); return p, err }
		fail := func(p fastjson.Lexer) (fastjson.Lexer, error) { p.Skip(); p.Skip(); return p, errors.New("no") }
		for _, read := range []func(fastjson.Lexer) (fastjson.Lexer, error){readAny, fail} {
			value = nil
			got, read, ok := PeekReading(line, read)
			if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
				t.Fatalf("%q, reading:\nfast %v %+v\n std %v %+v", line, ok, got, wantOK, want)
			}
			if !read {
				continue
			}
			var std any
			if err := json.Unmarshal(want.Result, &std); err != nil || !reflect.DeepEqual(value, std) {
				t.Fatalf("%q: read %#v, encoding/json %#v (%v)", line, value, std, err)
			}
		}
	})
}

package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// FuzzArgs: the classifier's lookups in a call's text find what they
// find in the map encoding/json decodes the text into, for every text
// encoding/json reads (the relay reports no call whose arguments it
// cannot read).
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"path":"/ws/a.py","head":10}`, `{"path":"a","path":"b"}`, `{"path":"a","path":5}`, `{"path":5,"path":"a"}`,
		`{"head":"12 lines","tail":-3.9,"line":1e3}`, `{"paths":["a",1,"b",null,["c"]],"dryRun":true}`,
		`{"dryRun":"true","paths":"a"}`, `{"Path":"a","pa\u0074h":"\u00e9\ud800"}`, `[{"path":"a"}]`, `"path"`, `null`,
		`{}`, ` {"command" : "ls -la" , "cmd":null} `, `{"file_path":{"path":"nested"},"start_line":"x"}`,
		`{"a":1e308,"line":-0,"end_line":9223372036854775807}`,
	} {
		f.Add([]byte(s))
	}
	keys := []string{"path", "head", "tail", "paths", "dryRun", "command", "cmd", "file_path", "line", "start_line", "end_line", "source", ""}
	f.Fuzz(func(t *testing.T, text []byte) {
		var v any
		if json.Unmarshal(text, &v) != nil {
			return
		}
		m, _ := v.(map[string]any)
		for _, k := range keys {
			la, ma := textArgs(text), mapArgs(m)
			lean, want := &la, &ma
			if got, w := lean.str(k), want.str(k); got != w {
				t.Fatalf("%s: str(%q) = %q, the map's %q", text, k, got, w)
			}
			if got, w := lean.num(k), want.num(k); got != w {
				t.Fatalf("%s: num(%q) = %d, the map's %d", text, k, got, w)
			}
			if got, w := lean.strs(k), want.strs(k); !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: strs(%q) = %q, the map's %q", text, k, got, w)
			}
			if got, w := lean.boolean(k), want.boolean(k); got != w {
				t.Fatalf("%s: boolean(%q) = %v, the map's %v", text, k, got, w)
			}
		}
	})
}

// TestArgsRead: the arguments agents send are looked up in their text,
// with no map decoded (a test of the fast path's reach, which the fuzzer
// cannot fail).
func TestArgsRead(t *testing.T) {
	if fastjson.Reference() {
		t.Skip("the fast path's reach: SWETOUCH_REFERENCE=1 takes the map")
	}
	for _, s := range []string{
		`{"path":"/testbed/astropy/io/fits/card.py","head":40}`,
		`{"paths":["a.py","b.py"],"options":{"depth":2,"follow":null}}`,
		`{"file_path":"/repo/a.py","old_string":"x = 1\n","new_string":"x = 2\n","dryRun":false}`,
	} {
		a := textArgs([]byte(s))
		a.str("path")
		a.num("head")
		a.strs("paths")
		a.boolean("dryRun")
		if a.read {
			t.Errorf("%s: decoded into a map", s)
		}
	}
}

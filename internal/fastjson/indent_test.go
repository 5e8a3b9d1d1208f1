package fastjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalIndentIsEncodingJSONs: the same bytes as encoding/json for
// what the two engines could write apart: HTML, JavaScript's line
// separators, bytes that are not UTF-8 (where the v2 engine alone would
// write U+FFFD itself), control bytes, floats large and small, maps'
// key order, nil and empty slices, embedded structs.
func TestMarshalIndentIsEncodingJSONs(t *testing.T) {
	type inner struct {
		A string `json:"a,omitempty"`
	}
	type doc struct {
		inner
		S   string             `json:"s"`
		F   []float64          `json:"f"`
		M   map[string]int     `json:"m"`
		N   []string           `json:"n"`
		E   []string           `json:"e"`
		P   *int               `json:"p"`
		Raw json.RawMessage    `json:"raw"`
		Any map[string]any     `json:"any"`
		Opt map[string]*string `json:"opt,omitempty"`
	}
	for _, s := range []string{"plain", "<a href=\"x\">&amp;</a>", "line\u2028sep\u2029", "bad \xff\xfe bytes", "\x00\x01\t\n\r", "é ü 中文 🙂", "\ufffd itself"} {
		v := doc{inner: inner{A: s}, S: s, F: []float64{0, -0.0, 1e-7, 1e21, 123456789.125, 0.1 + 0.2}, M: map[string]int{"b": 1, "a": 2, s: 3},
			E: []string{}, Raw: json.RawMessage(`{"z":1,"a":[1, 2]}`), Any: map[string]any{"k": s, "n": 1.5}}
		want, err := json.MarshalIndent(v, "  ", "\t")
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalIndent(v, "  ", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n%s\nwant\n%s", s, got, want)
		}
	}
}

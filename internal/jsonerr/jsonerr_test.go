package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	type doc struct {
		A struct {
			N int `json:"n"`
		} `json:"a"`
	}
	for _, tt := range []struct{ in, field, want string }{
		{"{\n\"a\": {\n\"n\": \"x\"}}", "", `f.json:3: field a.n: want int, got JSON string`},
		{"{\n\"a\": {\n\"n\": 1,}}", "", `f.json:3: invalid JSON: invalid character '}'`},
		{"{\n\"a\": {\"n\": 1},\n\"zz\": 2}", "", `f.json:3: json: unknown field "zz"`},
		{"[1]", "", `f.json:1: want main.doc`},
	} {
		dec := json.NewDecoder(strings.NewReader(tt.in))
		dec.DisallowUnknownFields()
		var d doc
		err := Locate("f.json", []byte(tt.in), 0, tt.field, dec.Decode(&d))
		if err == nil || !strings.HasPrefix(err.Error(), strings.Replace(tt.want, "main.doc", "jsonerr.doc", 1)) {
			t.Errorf("%q: %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

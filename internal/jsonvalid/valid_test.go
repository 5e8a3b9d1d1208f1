package jsonvalid

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid: Valid says what json.Valid says.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,-0,true,false,null,"x\u00e9\n"]}`, `01`, `1.`, `-`, `"\x"`, `{"a" 1}`, `[1,]`, `{,}`, "\"\x01\"", `"\ud800"`, ` [] `, `[[[`, "\"\xff\"", `1e+`, `{"a":{}}x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Fatalf("%q: Valid %v, json.Valid %v", s, got, want)
		}
	})
}

func TestValidDepth(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		s := strings.Repeat("[", n) + strings.Repeat("]", n)
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("depth %d: Valid %v, json.Valid %v", n, got, want)
		}
	}
}

package proxy

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestIDKeyMatchesByValue(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, ` 1 `, `1e0`},
		{`"a"`, `"\u0061"`},
		{`null`, ` null`},
	}
	for _, group := range same {
		for _, id := range group[1:] {
			if IDKey(json.RawMessage(id)) != IDKey(json.RawMessage(group[0])) {
				t.Errorf("%s and %s are the same id, keys %q and %q", group[0], id, IDKey(json.RawMessage(group[0])), IDKey(json.RawMessage(id)))
			}
		}
	}
	differ := [][2]string{{`1`, `"1"`}, {`1`, `2`}, {`"a"`, `"A"`}, {`null`, `"null"`}, {`9007199254740993`, `9007199254740992`}}
	for _, d := range differ {
		if IDKey(json.RawMessage(d[0])) == IDKey(json.RawMessage(d[1])) {
			t.Errorf("%s and %s are different ids, both %q", d[0], d[1], IDKey(json.RawMessage(d[0])))
		}
	}
}

// FuzzIDKey: the plain reading of an id keys it as encoding/json's does.
func FuzzIDKey(f *testing.F) {
	for _, s := range []string{`1`, `-0`, `007`, `"abc"`, `"a\"b"`, `"é"`, `123456789012345678`, `-9223372036854775808`, `1.0`, `"`, `""`, ` 5 `, `-`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		b := bytes.TrimSpace([]byte(id))
		if len(b) == 0 {
			return
		}
		if got, ok := appendPlainIDKey([]byte("x\x00"), b); ok {
			if want := "x\x00" + idKeyGeneral(b); string(got) != want {
				t.Fatalf("%q: %q, encoding/json's reading %q", id, got, want)
			}
		}
	})
}

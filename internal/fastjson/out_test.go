package fastjson

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzAppendString: AppendString writes what json.Marshal writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \back\`, "<a href='x'>&amp;</a>", "tab\tnl\ncr\r\b\f\x00\x1f\x7f",
		"é ü 😀", "\u2028\u2029", "\xff\xfe bad", "a\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// FuzzAppendFloat: AppendFloat writes what json.Marshal writes for a
// float64.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.999e-7, 1e20, 1e21, 123456789012345678, 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return
		}
		want, _ := json.Marshal(v)
		if got := AppendFloat(nil, v); !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s, want %s", v, got, want)
		}
	})
}

// FuzzCanonical: where Canonical reads a text, it writes what json.Marshal
// writes for the value json.Unmarshal reads from it.
func FuzzCanonical(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !json.Valid(text) {
			return
		}
		got, ok := Canonical(nil, text)
		if !ok {
			return
		}
		var v any
		if err := json.Unmarshal(text, &v); err != nil {
			t.Fatalf("%q: Canonical read it, Unmarshal: %v", text, err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", text, got, want)
		}
	})
}

var canonicalSeeds = []string{
	`{}`, `{"path":"/ws/a.py"}`, `{"path": "/ws/a.py", "head": 10}`, `{"b":1,"a":2,"b":3}`,
	`{"z":{"y":[1,2.50,-0,1e3,1E-7,12345678901234567890]},"a":null,"t":true,"f":false}`,
	`{"s":"<tag> & \u00e9 \ud83d\ude00 \u2028"}`, `[1,"x",{"k":[]}]`, `"just a string"`, `3.0`, `-0`,
	`{"\u00e9":1}`, `{"a":1e400}`, `  {"a" : [ ] }  `, `{"A":1,"a":2}`, `{"":0}`, `{"k\n":"v\u0000"}`,
	// in order until they are not (written as read, then read again)
	`{"a":1,"b":2,"a":3}`, `{"a":{"c":1,"b":2},"b":[{"y":1,"x":2}]}`, `{"a":1,"\u00e9":2}`, `{"a":1,"b":1e400}`,
	`{"a":1,"c":2,"b":3}`, `{"a":1} {"b":2}`,
}

// TestCanonicalInOrderAllocates: arguments whose keys come in order are
// written into dst as they are read, with nothing held to be sorted (a
// relay writes such a text on every call).
func TestCanonicalInOrderAllocates(t *testing.T) {
	text := []byte(`{"head":10,"path":"/ws/src/a.py","tail":null}`)
	dst := make([]byte, 0, 2*len(text))
	if n := testing.AllocsPerRun(100, func() { Canonical(dst[:0], text) }); n != 0 {
		t.Errorf("Canonical of %s allocates %v times, want 0", text, n)
	}
}

// TestCanonicalReads: the arguments agents send are read by hand, not
// left to encoding/json (a test of the fast path's reach, which the fuzzer
// cannot fail).
func TestCanonicalReads(t *testing.T) {
	for _, s := range []string{
		`{"path":"/testbed/astropy/io/fits/card.py","head":40}`,
		`{"command":"cd /testbed && python -m pytest -x tests/test_card.py 2>&1 | tail -20","timeout":120}`,
		`{"file_path":"/repo/a.py","old_string":"x = 1\n","new_string":"x = 2\n","replace_all":false}`,
		`{"paths":["a.py","b.py"],"options":{"depth":2,"follow":null}}`,
	} {
		if _, ok := Canonical(nil, []byte(s)); !ok {
			t.Errorf("%s: left to encoding/json", s)
		}
	}
	for _, s := range []string{`{"\u00e9":1}`, `{"a":1e400}`, `{"a":1} x`} {
		if _, ok := Canonical(nil, []byte(s)); ok {
			t.Errorf("%s: read by hand, where encoding/json's reading differs or fails", s)
		}
	}
}

// FuzzSafeRun: safeRun, eight bytes at a time, stops where a look at each
// byte stops, from any start.
func FuzzSafeRun(f *testing.F) {
	for _, s := range []string{"plain text that runs on past a word", "abcdefg<hij", "abcdefgh&", "\x1fabcdefgh", "abcdefgh\u00e9ijklmnop",
		"=======>", ";;;;;;;;;'", "abc&defghijk", "ab<cdefghijk", "abcd>efghijk", "a\"bcdefghijk", "ab\\cdefghijk", "abc\ndefghijk", "abcdefg\u00e9hijk", "%%%%%%%%\"", "[[[[[[[[\\", "aaaaaaa\x21\x23bbbbbbbb\x3d\x3f\x5b\x5d\x7f"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, start int) {
		if start < 0 || start > len(s) {
			return
		}
		want := start
		for want < len(s) && safeByte(s[want]) {
			want++
		}
		if got := safeRun(s, start); got != want {
			t.Fatalf("safeRun(%q, %d) = %d, want %d", s, start, got, want)
		}
	})
}

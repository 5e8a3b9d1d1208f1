package fastjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// FuzzAny: where Any reads a JSON text, it reads what json.Unmarshal
// reads into an any.
func FuzzAny(f *testing.F) {
	for _, s := range []string{`{"path":"/ws/a.py","head":10}`, `[1,"x",null,true,{"a":[]}]`, `{"a":1,"a":{"b":2}}`,
		`"\u00e9\ud83d\ude00\ud800"`, `-0.5e-3`, `1e400`, `{"\xff":1}`, `{"K":1,"k":2}`, ` null `, `{"a":[[[]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !json.Valid(text) {
			return
		}
		p := New(text)
		got, err := p.Any()
		if err == nil {
			err = p.End()
		}
		var want any
		werr := json.Unmarshal(text, &want)
		if err != nil {
			if werr == nil && (err != ErrUnsupported || !deep(text)) {
				t.Fatalf("%q: Any fails (%v) where Unmarshal reads %v", text, err, want)
			}
			return
		}
		if werr != nil {
			t.Fatalf("%q: Any reads %v where Unmarshal fails: %v", text, got, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", text, got, want)
		}
	})
}

// deep reports whether a text nests past what a Lexer reads.
func deep(text []byte) bool {
	depth, most := 0, 0
	for _, c := range text {
		switch c {
		case '[', '{':
			depth++
			most = max(most, depth)
		case ']', '}':
			depth--
		}
	}
	return most > maxDepth
}

// FuzzWord: Word reads what Str reads, to the same place, whether or not
// the value is one of its words.
func FuzzWord(f *testing.F) {
	for _, s := range []string{`"end"`, `"en"`, `"end" `, `"e\u006ed"`, `"endé"`, `"end`, `null`, `5`, ` "begin",`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want string
		pw, ps := New(b), New(b)
		errW, errS := pw.Word(&got, "begin", "end", ""), ps.Str(&want)
		if (errW == nil) != (errS == nil) || got != want || pw.i != ps.i {
			t.Fatalf("%q: Word %q at %d (%v), Str %q at %d (%v)", b, got, pw.i, errW, want, ps.i, errS)
		}
	})
}

// FuzzStr: Str reads a string as json.Unmarshal reads it into a string,
// fails only where Unmarshal would, and skipStr stops where Str stops and
// fails where it fails.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\tc\"d\\e\/f\bg\fh\ri"`, `"\u00e9\ud83d\ude00\ud800x"`, `"\ud800\u00"`,
		`"\ud800\uzzzz"`, `"é\xffa"`, "\"a\x01b\"", `"\q"`, `"abc`, `"ab\`, `null`, `5`, ` "x" ,`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		p, q, o := New(text), New(text), Owned(string(text))
		var got, owned string
		err := p.Str(&got)
		serr := q.skipStr()
		if (err == nil) != (serr == nil) || err == nil && p.i != q.i {
			t.Fatalf("%q: Str ends at %d (%v), skipStr at %d (%v)", text, p.i, err, q.i, serr)
		}
		if oerr := o.Str(&owned); (oerr == nil) != (err == nil) || owned != got || o.i != p.i {
			t.Fatalf("%q: Str of an owned text reads %q to %d (%v), of bytes %q to %d (%v)", text, owned, o.i, oerr, got, p.i, err)
		}
		// StrBulk reads as Str, with the rest of the text long or not
		for _, rest := range [][]byte{nil, bytes.Repeat([]byte(" "), 2<<10)} {
			b := New(append(bytes.Clone(text), rest...))
			var bulk string
			if berr := b.StrBulk(&bulk); (berr == nil) != (err == nil) || bulk != got || err == nil && b.i != p.i {
				t.Fatalf("%q and %d spaces: StrBulk reads %q to %d (%v), Str %q to %d (%v)", text, len(rest), bulk, b.i, berr, got, p.i, err)
			}
		}
		var want string
		if err != nil {
			if json.Unmarshal(text, &want) == nil {
				t.Fatalf("%q: Str fails (%v) where Unmarshal reads %q", text, err, want)
			}
			return
		}
		if werr := json.Unmarshal(text[:p.i], &want); werr != nil || got != want {
			t.Fatalf("%q: Str reads %q, Unmarshal %q (%v)", text, got, want, werr)
		}
	})
}

// TestStrBulkRoom: a string StrBulk reads is copied into room of its own
// when it proves short beside the rest of the text (else it would keep
// the rest's room alive), and is not when it is the bulk of it: one
// allocation more for the short one.
func TestStrBulkRoom(t *testing.T) {
	read := func(text string) float64 {
		var v string
		allocs := testing.AllocsPerRun(5, func() {
			if err := New([]byte(text)).StrBulk(&v); err != nil {
				t.Fatal(err)
			}
		})
		var want string
		if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &want); err != nil || v != want {
			t.Fatalf("read %.40q, want %.40q (%v)", v, want, err)
		}
		return allocs
	}
	short := read(`"a\nb"` + strings.Repeat(" ", 4<<10))
	bulk := read(`"` + strings.Repeat(`    return price * (100 - percent) / 100\n`, 100) + `"` + strings.Repeat(" ", 100))
	if short != bulk+1 {
		t.Errorf("%v allocations for a short string, %v for the bulk: want one more", short, bulk)
	}
}

// TestOwnedStrings: a plain string read from an owned text is a piece of
// it, made without an allocation; one with an escape is a string of its
// own.
func TestOwnedStrings(t *testing.T) {
	text := `{"command":"ls -la","output":"a\nb"}`
	var cmd, out string
	allocs := testing.AllocsPerRun(10, func() {
		p := Owned(text)
		if err := p.Object(func(key string) error {
			if key == "command" {
				return p.Str(&cmd)
			}
			return p.Skip()
		}); err != nil {
			t.Fatal(err)
		}
	})
	if cmd != "ls -la" || allocs > 1 { // the lexer itself
		t.Fatalf("command %q read with %v allocations", cmd, allocs)
	}
	if i := strings.Index(text, "ls -la"); unsafe.StringData(cmd) != unsafe.StringData(text[i:]) {
		t.Fatalf("the command is a copy, not a piece of the text")
	}
	p := Owned(text)
	p.Object(func(key string) error {
		if key == "output" {
			return p.Str(&out)
		}
		return p.Skip()
	})
	if out != "a\nb" {
		t.Fatalf("output %q", out)
	}
}

// FuzzPlainRun: plainRun, eight bytes at a time, stops where a look at
// each byte stops, from any start.
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"plain text that runs on past a word", "abcdefg\"hij", "abcdefgh\\", "\x1fabcdefgh", "abcdefgh\x80ijklmnop",
		"\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f", "!!!!!!!!\"", "########\x00", "ab\"cdefghijk", "abc\\defghijk", "a\x01bcdefghijk", "abcd\xc3\xa9fghijk", "aaaaaaa\x21\x23bbbbbbbb\x5b\x5d"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, start int) {
		if start < 0 || start > len(b) {
			return
		}
		want := start
		for want < len(b) && plainByte(b[want]) {
			want++
		}
		if got := plainRun(b, start); got != want {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, start, got, want)
		}
	})
}

// FuzzValid: a lexer over a text read whole before skips every value of
// it as a checking lexer does, to the same byte.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`"a\"b\\"`, `{"k":"\\\\\"","n":[1,"\"",{}]}`, `["\\","\\\\\\\"x"]`, `"plain"`, `{"content":"x = \"\\\\\"\n"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checked := New(b)
		raw, err := checked.Raw()
		if err != nil {
			return
		}
		fast := Valid(raw)
		got, err := fast.Raw()
		if err != nil || string(got) != string(raw) || fast.End() != nil {
			t.Fatalf("%q: the valid lexer read %q (%v), the checking one %q", b, got, err, raw)
		}
	})
}

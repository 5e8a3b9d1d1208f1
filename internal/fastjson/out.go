// Writing: out.go writes JSON byte for byte as encoding/json.Marshal
// writes it, without its reflection: strings (HTML-escaped, as Marshal
// escapes them), float64 numbers, and the text Marshal writes for the
// value Unmarshal reads from a JSON text (Canonical). The relay and the
// recorder write on every tool call, where encoding/json's reflection,
// cold, cost tens of microseconds. Each function is fuzzed against
// encoding/json.

package fastjson

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendString appends s as json.Marshal writes a string: quoted, with
// <, > and & escaped, invalid UTF-8 as U+FFFD, and U+2028 and U+2029
// escaped.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = safeRun(s, i); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // the other control bytes, and <, >, &
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// safeRun is where the run of bytes at i that AppendString writes as
// they are (printable ASCII but a quote, a backslash, <, > and &) ends.
// It looks at eight bytes at a time, a word with none of the others
// passed whole: a file's text told to the hub is written so.
func safeRun(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	has := func(x uint64, c byte) uint64 { return (x ^ (ones * uint64(c))) - ones }
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// a byte's high bit is set here where it is one of those or
		// beyond ASCII; a borrow sets more only above such a byte, so the
		// lowest is the first
		if m := ((x - ones*0x20) | has(x, '"') | has(x, '\\') | has(x, '<') | has(x, '>') | has(x, '&') | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(s) && safeByte(s[i]) {
		i++
	}
	return i
}

// safeByte reports whether AppendString writes c as it is, one byte.
func safeByte(c byte) bool {
	return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// AppendFloat appends f as json.Marshal writes a float64 (the shortest
// form that reads back as f, with an exponent below 1e-6 and from 1e21
// on); f must be finite.
func AppendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-07 is written e-7
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// Canonical appends what json.Marshal writes for the value json.Unmarshal
// reads from text into an any (objects with their keys sorted, the last
// of a repeated key kept; numbers as float64); text must be valid JSON.
// ok is false where encoding/json's reading is left to it: a key beyond
// ASCII, a number out of float64's range (Unmarshal fails), nesting past
// what the lexer bounds, and text left over after the value.
func Canonical(dst []byte, text []byte) (out []byte, ok bool) {
	p := New(text)
	if p.Peek() == '{' {
		// an object whose keys come in order, each once (a call's
		// arguments nearly always), is written as it is read: nothing
		// is held to be sorted. Only the outermost object is tried so,
		// so that no text is read more than twice.
		start := *p
		var sorted bool
		if out, sorted, ok = inOrder(p, dst); sorted {
			if !ok || p.End() != nil {
				return dst, false
			}
			return out, true
		}
		*p = start
	}
	out, ok = canonical(p, dst)
	if !ok || p.End() != nil {
		return dst, false
	}
	return out, true
}

// errUnsorted stops inOrder at a key not past the one before it.
var errUnsorted = errors.New("keys out of order")

// inOrder is canonical for an object read at p whose keys come in
// their sorted order, none twice; sorted is false at the first that
// does not, and p is then partly read.
func inOrder(p *Lexer, dst []byte) (out []byte, sorted, ok bool) {
	out = append(dst, '{')
	prev, n := "", 0
	err := p.Object(func(key string) error {
		if n > 0 && key <= prev {
			return errUnsorted
		}
		for i := 0; i < len(key); i++ {
			if key[i] >= utf8.RuneSelf {
				return ErrUnsupported
			}
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = AppendString(out, key)
		out = append(out, ':')
		var ok bool
		if out, ok = canonical(p, out); !ok {
			return ErrUnsupported
		}
		prev, n = key, n+1 // a key outlives the call (see canonical)
		return nil
	})
	switch err {
	case nil:
		return append(out, '}'), true, true
	case errUnsorted:
		return dst, false, false
	}
	return dst, true, false
}

// member is an object's member: its key as read, and where its value,
// as written, lies in the object's values.
type member struct {
	key        string
	start, end int
}

func canonical(p *Lexer, dst []byte) ([]byte, bool) {
	switch c := p.Peek(); {
	case c == '{':
		// the members' values are written one after another into vals,
		// then copied out in the keys' order; a key is the text's own
		// bytes or a string the lexer made, either of which outlives
		// the call (so no copy, whatever Object says of keys)
		var held [8]member
		ms := held[:0]
		var vals []byte
		err := p.Object(func(key string) error {
			for i := 0; i < len(key); i++ {
				if key[i] >= utf8.RuneSelf {
					return ErrUnsupported // as decoded, with U+FFFD for bad bytes: left to encoding/json
				}
			}
			start := len(vals)
			var ok bool
			if vals, ok = canonical(p, vals); !ok {
				return ErrUnsupported
			}
			if i := slices.IndexFunc(ms, func(m member) bool { return m.key == key }); i >= 0 {
				ms[i].start, ms[i].end = start, len(vals) // the last one read is the one kept
				return nil
			}
			ms = append(ms, member{key, start, len(vals)})
			return nil
		})
		if err != nil {
			return dst, false
		}
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.key)
			dst = append(dst, ':')
			dst = append(dst, vals[m.start:m.end]...)
		}
		return append(dst, '}'), true
	case c == '[':
		dst = append(dst, '[')
		n := 0
		err := p.Array(func() error {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			var ok bool
			if dst, ok = canonical(p, dst); !ok {
				return ErrUnsupported
			}
			return nil
		})
		return append(dst, ']'), err == nil
	case c == '"':
		raw, err := p.Raw()
		if err != nil {
			return dst, false
		}
		if written(raw) {
			return append(dst, raw...), true
		}
		var s string
		if New(raw).Str(&s) != nil {
			return dst, false
		}
		return AppendString(dst, s), true
	case c == 't' || c == 'f' || c == 'n':
		raw, err := p.Raw()
		return append(dst, raw...), err == nil
	}
	raw, f, err := p.Number()
	if err != nil {
		return dst, false
	}
	if plainInt(raw) && math.Abs(f) < 1<<53 {
		return append(dst, raw...), true // what AppendFloat writes for it
	}
	return AppendFloat(dst, f), true
}

// written reports whether a string's text is as AppendString writes
// its value: every byte between its quotes one it writes as it is (none
// is a quote: the text is valid JSON).
func written(raw []byte) bool {
	for _, c := range raw[1 : len(raw)-1] {
		if !safeByte(c) {
			return false
		}
	}
	return true
}

// plainInt reports whether a number is written as an integer with no
// sign but a minus, no leading zero, fraction or exponent.
func plainInt(raw []byte) bool {
	d := bytes.TrimPrefix(raw, []byte("-"))
	if len(d) == 0 || len(d) > 1 && d[0] == '0' || string(raw) == "-0" {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Reading: lex.go reads a JSON text by hand, as encoding/json would read
// it into the plain Go values its callers name: strings (escapes and
// invalid UTF-8 as encoding/json decodes them), integers, booleans, null
// (which leaves a value as it was), objects whose keys match fields
// case-blind, arrays. A caller reads each field it knows and skips the
// rest; what only encoding/json reads exactly (a key beyond ASCII, which
// it folds by Unicode's rules) stops the read with ErrUnsupported, and
// the caller hands the text to encoding/json. Its callers fuzz each of
// their readings against encoding/json's.
//
// It exists because encoding/json's reflection, cold, cost tens of
// microseconds on each of the hub's and the relay's messages.

package fastjson

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// ErrUnsupported stops a read at what only encoding/json reads exactly.
var ErrUnsupported = errors.New("jsonlex: left to encoding/json")

// New returns a lexer at the start of b.
func New(b []byte) *Lexer { return &Lexer{b: b} }

// Owned returns a lexer at the start of text whose plain strings (Str)
// are pieces of text rather than copies: one copy of a line, made by the
// caller, for all the strings read from it. What is kept holds the whole
// of text.
func Owned(text string) *Lexer {
	return &Lexer{b: unsafe.Slice(unsafe.StringData(text), len(text)), owned: true}
}

// Valid returns a lexer at the start of b, a text a Lexer has read whole
// already (Raw's bytes): it skips a string by its closing quote alone,
// an order of magnitude faster than checking each byte, so a second look
// at a value (a field's type) costs little beside the first.
func Valid(b []byte) *Lexer { return &Lexer{b: b, valid: true} }

// Raw reads any value and returns its bytes as they came.
func (p *Lexer) Raw() ([]byte, error) {
	p.Peek()
	start := p.i
	if err := p.Skip(); err != nil {
		return nil, err
	}
	return p.b[start:p.i], nil
}

// RawWith is Raw with the value read by read as well, in the same pass:
// read is handed a copy of the lexer at the value and gives it back past
// the value, read whole, or fails, and then the value is skipped instead
// and readErr says why. err is the skip's. A reader that wants one part
// of a text and the raw bytes of the part around it so lexes it once.
// (The lexer goes by value, so that handing it on keeps it off the heap.)
func (p *Lexer) RawWith(read func(Lexer) (Lexer, error)) (raw []byte, readErr, err error) {
	p.Peek()
	start := p.i
	past, readErr := read(*p)
	if readErr == nil {
		*p = past
		return p.b[start:p.i], nil, nil
	}
	raw, err = p.Raw()
	return raw, readErr, err
}

// End fails unless only space is left.
func (p *Lexer) End() error {
	p.space()
	if p.i != len(p.b) {
		return p.Fail("after the value")
	}
	return nil
}

// Lexer walks one JSON text.
type Lexer struct {
	b     []byte
	i     int
	depth int  // objects and arrays open now
	owned bool // b is a string's bytes (Owned): never written, and kept
	valid bool // b is a text read whole before (Valid)
}

// maxDepth bounds the nesting a Lexer reads: encoding/json refuses more
// than 10,000 levels, and far below that both read alike.
const maxDepth = 1000

// enter opens an object or array, refusing one past maxDepth.
func (p *Lexer) enter() error {
	if p.depth++; p.depth > maxDepth {
		return ErrUnsupported
	}
	return nil
}

// Fail is the error of a text that is not what the reader wants here.
func (p *Lexer) Fail(what string) error {
	return fmt.Errorf("bad JSON at byte %d (%s)", p.i, what)
}

func (p *Lexer) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// Peek skips space and returns the next byte (0 at the end).
func (p *Lexer) Peek() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *Lexer) literal(word string) bool {
	if p.Peek() != word[0] || !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return false
	}
	p.i += len(word)
	return true
}

// Null reads a null if one is next.
func (p *Lexer) Null() bool { return p.literal("null") }

// Bool reads a boolean into v (null leaves v as it was).
func (p *Lexer) Bool(v *bool) error {
	switch {
	case p.literal("true"):
		*v = true
	case p.literal("false"):
		*v = false
	case p.Null():
	default:
		return p.Fail("want a boolean")
	}
	return nil
}

// Int64 reads an integer into v (null leaves v as it was); a number
// with a fraction or an exponent fails, as it does in encoding/json.
func (p *Lexer) Int64(v *int64) error {
	if p.Null() {
		return nil
	}
	p.Peek()
	raw, err := p.number()
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64) // a fraction or an exponent fails, as in encoding/json
	if err != nil {
		return p.Fail("want an integer")
	}
	*v = n
	return nil
}

// Int is Int64 into an int.
func (p *Lexer) Int(v *int) error {
	n := int64(*v)
	err := p.Int64(&n)
	*v = int(n)
	return err
}

// Str reads a string (null leaves v as it was), escapes decoded as encoding/json decodes them.
func (p *Lexer) Str(v *string) error { return p.str(v, false) }

// StrBulk is Str for a string that is most of what is left of the text
// (a told read's output): one with escapes, with more than 1 KiB left,
// is decoded into room for the rest of the text, with no pass to find
// where it ends first (a fifth of decoding a file's text), and copied
// into room of its own when it proves much shorter.
func (p *Lexer) StrBulk(v *string) error { return p.str(v, true) }

// Word is Str for a field whose value is nearly always one of words (an
// op, a kind, a source): a plain string equal to one of them is set to
// that word, with no string made for it; any other value is read as Str
// reads it.
func (p *Lexer) Word(v *string, words ...string) error {
	p.Peek()
	if text, end, ok := p.plain(); ok {
		for _, w := range words {
			if string(text) == w {
				*v = w
				p.i = end
				return nil
			}
		}
	}
	return p.Str(v)
}

// plain finds the string at the position when it is plain (no escapes,
// no control characters, nothing beyond ASCII, as Str would read it
// byte for byte): its bytes, and where its closing quote ends. ok is
// false for any other value, a string to be read by Str.
func (p *Lexer) plain() (text []byte, end int, ok bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, 0, false
	}
	if j := plainRun(p.b, p.i+1); j < len(p.b) && p.b[j] == '"' {
		return p.b[p.i+1 : j], j + 1, true
	}
	return nil, 0, false
}

// Object reads {"key": value, …}, handing each key to field, which reads
// its value. A plain key (ASCII, no escapes) is the text's own bytes, not
// a copy: it holds only while field runs, and field must copy what it
// keeps (a key is nearly always only compared).
func (p *Lexer) Object(field func(key string) error) error {
	if p.Peek() != '{' {
		return p.Fail("want an object")
	}
	defer func() { p.depth-- }()
	if err := p.enter(); err != nil {
		return err
	}
	p.i++
	if p.Peek() == '}' {
		p.i++
		return nil
	}
	for {
		key, err := p.key()
		if err != nil {
			return err
		}
		if p.Peek() != ':' {
			return p.Fail("want a colon")
		}
		p.i++
		if err := field(key); err != nil {
			return err
		}
		switch p.Peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.Fail("want a comma or a brace")
		}
	}
}

// Array reads [value, …], elem reading each value.
func (p *Lexer) Array(elem func() error) error {
	if p.Peek() != '[' {
		return p.Fail("want an array")
	}
	defer func() { p.depth-- }()
	if err := p.enter(); err != nil {
		return err
	}
	p.i++
	if p.Peek() == ']' {
		p.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch p.Peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return nil
		default:
			return p.Fail("want a comma or a bracket")
		}
	}
}

// number reads a number as JSON writes one, strictly:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *Lexer) number() ([]byte, error) {
	b, i := p.b, p.i
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, p.Fail("bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, p.Fail("bad number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, p.Fail("bad number")
		}
	}
	raw := b[p.i:i]
	p.i = i
	return raw, nil
}

// Skip reads any value.
func (p *Lexer) Skip() error {
	switch c := p.Peek(); {
	case c == '{':
		return p.Object(func(string) error { return p.Skip() })
	case c == '[':
		return p.Array(p.Skip)
	case c == '"':
		return p.skipStr()
	case p.literal("true") || p.literal("false") || p.Null():
		return nil
	case c == '-' || c >= '0' && c <= '9':
		_, err := p.number()
		return err
	}
	return p.Fail("want a value")
}

// key reads an object's key: a plain one as the text's bytes (see
// Object), any other as Str reads it.
func (p *Lexer) key() (string, error) {
	p.Peek()
	if k, end, ok := p.plain(); ok {
		p.i = end
		if len(k) == 0 {
			return "", nil
		}
		return unsafe.String(&k[0], len(k)), nil
	}
	var k string
	err := p.Str(&k)
	return k, err
}

// Fields reads an object as Object does, handing field each key as
// encoding/json matches it to a struct field: case-blind. A key beyond
// ASCII, whose Unicode folding (ſ for s, K for k) is left to
// encoding/json, stops the read with ErrUnsupported.
func (p *Lexer) Fields(field func(key string) error) error {
	return p.FoldedFields(func(key string) error { return field(strings.ToLower(key)) })
}

// FoldedFields is Fields handing field each key as it came, for a reader
// that matches it with strings.EqualFold (and may want its spelling):
// lowering a key with a capital in it (structuredContent) makes a string.
func (p *Lexer) FoldedFields(field func(key string) error) error {
	return p.Object(func(key string) error {
		for i := 0; i < len(key); i++ {
			if key[i] >= 0x80 {
				return ErrUnsupported
			}
		}
		return field(key)
	})
}

// Any reads a value as json.Unmarshal reads one into an any: objects as
// map[string]any (the last of a repeated key kept), arrays as []any,
// numbers as float64. A number out of float64's range, where Unmarshal
// fails, and nesting past maxDepth are ErrUnsupported.
func (p *Lexer) Any() (any, error) {
	switch c := p.Peek(); {
	case c == '{':
		m := map[string]any{}
		err := p.Object(func(key string) error {
			v, err := p.Any()
			m[strings.Clone(key)] = v // the key is the text's own bytes
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := p.Array(func() error {
			v, err := p.Any()
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		var s string
		err := p.Str(&s)
		return s, err
	case c == 't' || c == 'f':
		var b bool
		err := p.Bool(&b)
		return b, err
	case c == 'n':
		if p.Null() {
			return nil, nil
		}
		return nil, p.Fail("want a value")
	}
	_, f, err := p.Number()
	return f, err
}

// Number reads a number: its text as it came and its value as a float64
// (as json.Unmarshal reads one into an any). One out of float64's range,
// which Unmarshal refuses, is ErrUnsupported.
func (p *Lexer) Number() (raw []byte, f float64, err error) {
	p.Peek()
	if raw, err = p.number(); err != nil {
		return nil, 0, err
	}
	if f, err = strconv.ParseFloat(string(raw), 64); err != nil {
		return nil, 0, ErrUnsupported
	}
	return raw, f, nil
}

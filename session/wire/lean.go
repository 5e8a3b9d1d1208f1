package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swetouch/swetouch/event"
)

// The shim is a fresh process per command, and encoding/json builds its
// encoder for a type on first use: for Request, which reaches event.Event,
// that took 0.4 ms of every command. The shim's two calls (begin, and end
// without events) are therefore written by hand, and answers are read
// into reply, which has no such depth. Both stay byte-compatible with
// what encoding/json reads. (Fuzzed against encoding/json: FuzzLeanLine,
// FuzzParseReply.)

// leanLine is the request line of begin, or of end without events; ok is
// false for any other request.
func leanLine(req Request) (line []byte, ok bool) {
	b := make([]byte, 0, 128)
	switch {
	case req.Op == "begin" && req.Begin != nil && (!req.NoReply || req.Key != ""):
		b = append(b, `{"op":"begin",`...)
		b = appendKey(b, req)
		b = append(b, `"begin":{"command":`...)
		b = appendString(b, req.Begin.Command)
		if req.Begin.Cwd != "" {
			b = append(b, `,"cwd":`...)
			b = appendString(b, req.Begin.Cwd)
		}
		if req.Begin.Source != "" {
			b = append(b, `,"source":`...)
			b = appendString(b, req.Begin.Source)
		}
		b = append(b, "}}\n"...)
	case req.Op == "end" && req.End != nil && plainEvents(req.End.Events) && (!req.NoReply || req.Key != ""):
		e := req.End
		b = append(b, `{"op":"end",`...)
		b = appendKey(b, req)
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, int64(req.ID), 10)
		b = append(b, `,"end":{"exit":`...)
		b = strconv.AppendInt(b, int64(e.Exit), 10)
		b = appendStrings(b, [][2]string{{"signal", e.Signal}, {"output", e.Output}, {"tail", e.Tail}, {"channel", e.Channel}})
		if e.Elided {
			b = append(b, `,"elided":true`...)
		}
		if e.Unseen {
			b = append(b, `,"unseen":true`...)
		}
		if e.Bytes != 0 {
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, int64(e.Bytes), 10)
		}
		if len(e.Events) > 0 {
			b = append(b, `,"events":[`...)
			for i, ev := range e.Events {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendEvent(b, ev)
			}
			b = append(b, ']')
		}
		b = append(b, "}}\n"...)
	default:
		return nil, false
	}
	return b, true
}

// plainEvents reports whether events hold only what an adapter's
// classification sets (kind, scopes, the strings), which appendEvent
// writes: a relay's tool call ends with such events every call.
func plainEvents(evs []event.Event) bool {
	for _, ev := range evs {
		if !ev.Time.IsZero() || ev.Step != nil || ev.RecordedStep != nil || ev.Exit != nil || ev.Output != nil ||
			ev.Attempt != nil || ev.Raw != nil {
			return false
		}
	}
	return true
}

// appendEvent writes a plain event (plainEvents) as encoding/json reads it.
func appendEvent(b []byte, ev event.Event) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, ev.Seq, 10)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(ev.Kind))
	if len(ev.Scopes) > 0 {
		b = append(b, `,"scopes":[`...)
		for i, sc := range ev.Scopes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			first := true
			field := func(name string) {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, `"`+name+`":`...)
			}
			if sc.Path != "" {
				field("path")
				b = appendString(b, sc.Path)
			}
			if sc.Start != 0 {
				field("start")
				b = strconv.AppendInt(b, int64(sc.Start), 10)
			}
			if sc.End != 0 {
				field("end")
				b = strconv.AppendInt(b, int64(sc.End), 10)
			}
			if sc.Precision != "" {
				field("precision")
				b = appendString(b, string(sc.Precision))
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if ev.Action != 0 {
		b = append(b, `,"action":`...)
		b = strconv.AppendInt(b, int64(ev.Action), 10)
	}
	b = appendStrings(b, [][2]string{{"source", ev.Source}, {"actor", string(ev.Actor)}, {"command", ev.Command},
		{"tool", ev.Tool}, {"diff", ev.Diff}, {"text", ev.Text}, {"note", ev.Note}})
	return append(b, '}')
}

// appendStrings writes each named string that is not empty as a field,
// each after a comma (omitempty's rule).
func appendStrings(b []byte, fields [][2]string) []byte {
	for _, f := range fields {
		if f[1] != "" {
			b = append(b, `,"`+f[0]+`":`...)
			b = appendString(b, f[1])
		}
	}
	return b
}

// appendKey writes a keyed request's noreply and key fields, each
// followed by a comma.
func appendKey(b []byte, req Request) []byte {
	if req.NoReply {
		b = append(b, `"noreply":true,`...)
	}
	if req.Key != "" {
		b = append(b, `"key":`...)
		b = appendString(b, req.Key)
		b = append(b, ',')
	}
	return b
}

// appendString appends s as a JSON string, as encoding/json would read
// it back: invalid UTF-8 becomes U+FFFD, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// reply is a Response as the client reads it: Status stays raw until
// asked for (Client.Status), so decoding an answer is cheap.
type reply struct {
	OK       bool            `json:"ok"`
	Error    string          `json:"error"`
	ID       int             `json:"id"`
	Seq      int64           `json:"seq"`
	Messages []Message       `json:"messages"`
	Status   json.RawMessage `json:"status"`
	Armed    bool            `json:"armed"`
}

// parseReply reads an answer line without encoding/json (whose first use
// costs a fresh process 0.2 ms): the fields of reply, other fields
// skipped. It accepts what encoding/json writes, and errs on anything that
// is not one JSON object.
func parseReply(line []byte) (reply, error) {
	p := &lexer{b: line}
	var r reply
	if p.null() { // read as encoding/json reads it: nothing set
		return r, p.end()
	}
	err := p.object(func(key string) error {
		switch strings.ToLower(key) { // encoding/json matches keys case-blind too
		case "ok":
			return p.boolean(&r.OK)
		case "armed":
			return p.boolean(&r.Armed)
		case "error":
			return p.str(&r.Error)
		case "id":
			return p.intValue(&r.ID)
		case "seq":
			return p.integer(&r.Seq)
		case "status":
			p.peek()
			start := p.i
			if err := p.skip(); err != nil {
				return err
			}
			r.Status = append(json.RawMessage(nil), p.b[start:p.i]...)
			return nil
		case "messages":
			if p.null() {
				return nil
			}
			r.Messages = []Message{}
			return p.array(func() error {
				var m Message
				if p.null() {
					r.Messages = append(r.Messages, m)
					return nil
				}
				err := p.object(func(key string) error {
					switch strings.ToLower(key) {
					case "order":
						return p.intValue(&m.Order)
					case "text":
						return p.str(&m.Text)
					}
					return p.skip()
				})
				r.Messages = append(r.Messages, m)
				return err
			})
		}
		return p.skip()
	})
	if err == nil {
		err = p.end()
	}
	return r, err
}

// end fails unless only space is left.
func (p *lexer) end() error {
	p.space()
	if p.i != len(p.b) {
		return p.fail("after the value")
	}
	return nil
}

// lexer walks one JSON text.
type lexer struct {
	b []byte
	i int
}

func (p *lexer) fail(what string) error {
	return fmt.Errorf("hub answer: bad JSON at byte %d (%s)", p.i, what)
}

func (p *lexer) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// peek skips space and returns the next byte (0 at the end).
func (p *lexer) peek() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *lexer) literal(word string) bool {
	if p.peek() != word[0] || !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return false
	}
	p.i += len(word)
	return true
}

func (p *lexer) null() bool { return p.literal("null") }

func (p *lexer) boolean(v *bool) error {
	switch {
	case p.literal("true"):
		*v = true
	case p.literal("false"):
		*v = false
	case p.null():
	default:
		return p.fail("want a boolean")
	}
	return nil
}

func (p *lexer) integer(v *int64) error {
	if p.null() {
		return nil
	}
	p.peek()
	start := p.i
	for p.i < len(p.b) && (p.b[p.i] == '-' || p.b[p.i] == '+' || p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E' || p.b[p.i] >= '0' && p.b[p.i] <= '9') {
		p.i++
	}
	n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	if err != nil {
		return p.fail("want an integer")
	}
	*v = n
	return nil
}

// intValue reads an integer into an int.
func (p *lexer) intValue(v *int) error {
	n := int64(*v)
	err := p.integer(&n)
	*v = int(n)
	return err
}

// str reads a string, escapes decoded as encoding/json decodes them.
func (p *lexer) str(v *string) error {
	if p.null() {
		return nil
	}
	if p.peek() != '"' {
		return p.fail("want a string")
	}
	p.i++
	// a string of plain ASCII, as nearly every one is, is taken whole
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			*v = string(p.b[start:p.i])
			p.i++
			return nil
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	out := append(make([]byte, 0, p.i-start+16), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			*v = string(out)
			return nil
		case c < 0x20:
			return p.fail("control character in a string")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError) // as encoding/json reads invalid UTF-8
			} else {
				out = append(out, p.b[p.i:p.i+size]...)
			}
			p.i += size
			continue
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return p.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if x, ok := p.hex4(); ok {
						r2 = x
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						continue
					}
					p.i = save
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return p.fail("bad escape")
		}
	}
	return p.fail("unterminated string")
}

func (p *lexer) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// object reads {"key": value, …}, handing each key to field, which reads
// its value.
func (p *lexer) object(field func(key string) error) error {
	if p.peek() != '{' {
		return p.fail("want an object")
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return nil
	}
	for {
		var key string
		if err := p.str(&key); err != nil {
			return err
		}
		if p.peek() != ':' {
			return p.fail("want a colon")
		}
		p.i++
		if err := field(key); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.fail("want a comma or a brace")
		}
	}
}

func (p *lexer) array(elem func() error) error {
	if p.peek() != '[' {
		return p.fail("want an array")
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return nil
		default:
			return p.fail("want a comma or a bracket")
		}
	}
}

// skip reads any value.
func (p *lexer) skip() error {
	switch c := p.peek(); {
	case c == '{':
		return p.object(func(string) error { return p.skip() })
	case c == '[':
		return p.array(p.skip)
	case c == '"':
		var s string
		return p.str(&s)
	case p.literal("true") || p.literal("false") || p.null():
		return nil
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		for p.i < len(p.b) && strings.IndexByte("+-.eE0123456789", p.b[p.i]) >= 0 {
			p.i++
		}
		if _, err := strconv.ParseFloat(string(p.b[start:p.i]), 64); err != nil {
			return p.fail("bad number")
		}
		return nil
	}
	return p.fail("want a value")
}

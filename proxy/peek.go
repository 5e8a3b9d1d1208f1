package proxy

import (
	"bytes"
	"encoding/json"
)

// peekFast reads a valid JSON object's envelope without reflection: the
// relays see every message, and encoding/json's decode of each was most
// of a relay's own time per call. ok is false when the line needs
// encoding/json's own rules (an escaped or non-ASCII key, whose folding
// is Unicode's; a method that is escaped, not ASCII, or not a string):
// Peek then decodes it the slow way. line must be valid JSON.
func peekFast(line []byte) (e Envelope, ok bool) {
	s := &skipper{b: line}
	s.space()
	if !s.at('{') {
		return e, false
	}
	s.i++
	for {
		s.space()
		if s.at('}') {
			return e, true
		}
		if s.at(',') {
			s.i++
			continue
		}
		key, ok := s.plainString()
		if !ok {
			return e, false
		}
		s.space()
		s.i++ // the colon
		s.space()
		start := s.i
		s.value()
		raw := line[start:s.i]
		switch {
		case fold(key, "id"):
			e.ID = bytes.Clone(raw)
		case fold(key, "result"):
			e.Result = bytes.Clone(raw)
		case fold(key, "error"):
			e.Error = bytes.Clone(raw)
		case fold(key, "params"):
			e.Params = bytes.Clone(raw)
		case fold(key, "method"):
			if string(raw) == "null" {
				continue // leaves it as it was, as encoding/json does
			}
			m := &skipper{b: raw}
			v, ok := m.plainString()
			if !ok || m.i != len(raw) {
				return e, false
			}
			e.Method = string(v)
		}
	}
}

// fold is ASCII case-insensitive equality, which is encoding/json's key
// matching for ASCII keys.
func fold(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range key {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// skipper walks a JSON text already known to be valid.
type skipper struct {
	b []byte
	i int
}

func (s *skipper) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *skipper) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// plainString reads a string with no escapes and only ASCII in it; ok is
// false (and the position undefined) for any other value.
func (s *skipper) plainString() ([]byte, bool) {
	if !s.at('"') {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// value skips one value: a string (escapes honoured), or anything up to
// where its nesting closes.
func (s *skipper) value() {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			s.i++
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // the enclosing object's end
			}
			depth--
			if depth == 0 {
				s.i++
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return // after a number or a literal
			}
		}
		s.i++
	}
}

// slowPeek is Peek by encoding/json.
func slowPeek(line []byte) (Envelope, bool) {
	var e Envelope
	if json.Unmarshal(line, &e) != nil {
		return e, false
	}
	return e, true
}

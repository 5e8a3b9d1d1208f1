// Package jsonvalid checks that a text is JSON, as json.Valid does,
// without its scanner's call per byte: the relays check every message
// they read (the hub reads its lines with internal/jsonlex, which checks
// them as it goes).
package jsonvalid

// Valid reports whether b is one JSON value, as json.Valid does (grammar
// only: invalid UTF-8 in a string is encoding/json's to replace, not to
// refuse). json.Valid was a quarter of a relayed call's own time.
// FuzzValid holds the two to one answer.
func Valid(b []byte) bool {
	v := validator{b: b}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(b)
}

// maxDepth is encoding/json's nesting limit: deeper texts are not valid.
const maxDepth = 10000

type validator struct {
	b     []byte
	i     int
	depth int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value() bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		return v.container('}', true)
	case c == '[':
		return v.container(']', false)
	case c == '"':
		return v.str()
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	case c == 't':
		return v.word("true")
	case c == 'f':
		return v.word("false")
	case c == 'n':
		return v.word("null")
	}
	return false
}

// container reads an object (keyed) or an array up to its close.
func (v *validator) container(close byte, keyed bool) bool {
	if v.depth++; v.depth > maxDepth {
		return false
	}
	v.i++
	v.space()
	if v.i < len(v.b) && v.b[v.i] == close {
		v.i++
		v.depth--
		return true
	}
	for {
		if keyed {
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
		}
		if !v.value() {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case close:
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

// str reads a string: no control bytes, and only JSON's escapes.
func (v *validator) str() bool {
	for v.i++; v.i < len(v.b); v.i++ {
		switch c := v.b[v.i]; {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			v.i++
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if v.i+4 >= len(v.b) {
					return false
				}
				for _, h := range v.b[v.i+1 : v.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				v.i += 4
			default:
				return false
			}
		}
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(v.b) && v.b[v.i] == '0':
		v.i++
	case v.digits() == 0:
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return false
		}
	}
	return true
}

func (v *validator) digits() int {
	start := v.i
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i - start
}

func (v *validator) word(w string) bool {
	if len(v.b)-v.i < len(w) || string(v.b[v.i:v.i+len(w)]) != w {
		return false
	}
	v.i += len(w)
	return true
}

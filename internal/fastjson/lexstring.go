// Reading strings: the fast path over plain runs, escapes as
// encoding/json decodes them, and skipping a string unread.

package fastjson

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

func (p *Lexer) str(v *string, bulk bool) error {
	if p.Null() {
		return nil
	}
	if p.Peek() != '"' {
		return p.Fail("want a string")
	}
	p.i++
	// a string of plain ASCII, as nearly every one is, is taken whole
	start := p.i
	if p.i = plainRun(p.b, p.i); p.i < len(p.b) && p.b[p.i] == '"' {
		switch {
		case p.owned && p.i > start:
			*v = unsafe.String(&p.b[start], p.i-start)
		default:
			*v = string(p.b[start:p.i])
		}
		p.i++
		return nil
	}
	// the rest a run of plain bytes at a time, each special byte (an
	// escape, a control character, a byte beyond ASCII) read on its own
	room := len(p.b) - start
	if bulk = bulk && room > 1<<10; !bulk {
		room = strEnd(p.b, p.i) - start // short, or not the bulk: found
	}
	out := append(make([]byte, 0, room), p.b[start:p.i]...)
	for {
		run := p.i
		p.i = plainRun(p.b, p.i)
		out = append(out, p.b[run:p.i]...)
		if p.i >= len(p.b) {
			break
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if bulk && cap(out)-len(out) > len(out)/2+64 {
				out = bytes.Clone(out) // it keeps no more than half again what it holds
			}
			*v = unsafe.String(unsafe.SliceData(out), len(out)) // out is not written again
			return nil
		case c < 0x20:
			return p.Fail("control character in a string")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError) // as encoding/json reads invalid UTF-8
			} else {
				out = append(out, p.b[p.i:p.i+size]...)
			}
			p.i += size
			continue
		}
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		if d, ok := shortEscape(e); ok {
			out = append(out, d)
			continue
		}
		if e != 'u' {
			return p.Fail("bad escape")
		}
		r, ok := p.hex4()
		if !ok {
			return p.Fail("bad \\u escape")
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
	}
	return p.Fail("unterminated string")
}

// strEnd is where the string whose text goes on at i ends: its closing
// quote (one no backslash escapes), or the end of b. The string's text
// is no longer than that, escapes decoded (bar bytes that are not UTF-8,
// each read as three): the room its copy is made with, at once (grown
// by appending, a file's text read through an MCP relay was copied six
// times over).
func strEnd(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		j += i
		k := j
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j
		}
		i = j + 1
	}
}

// plainRun is where the run of plain string bytes (none of a quote, a
// backslash, a control character or a byte beyond ASCII) at i ends. It
// looks at eight bytes at a time, a word with none of them passed whole
// (a file's text read through a relay is scanned so, three times over).
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		// a byte's high bit is set here where it is below 0x20, a quote or
		// a backslash (its difference borrows), or beyond ASCII; a borrow
		// sets more only above such a byte, so the lowest is the first
		if m := ((x - ones*0x20) | ((x ^ (ones * '"')) - ones) | ((x ^ (ones * '\\')) - ones) | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(b) && plainByte(b[i]) {
		i++
	}
	return i
}

// plainByte reports whether c stands for itself in a string, one byte.
func plainByte(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf
}

// shortEscape is the byte a one-letter escape (\n, \") stands for.
func shortEscape(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func (p *Lexer) hex4() (rune, bool) {
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

// skipValidStr skips the rest of a string known to be valid: to its
// closing quote (strEnd).
func (p *Lexer) skipValidStr() error {
	j := strEnd(p.b, p.i)
	if j >= len(p.b) {
		p.i = len(p.b)
		return p.Fail("unterminated string")
	}
	p.i = j + 1
	return nil
}

// skipStr reads a string without keeping it: its escapes and control
// characters checked as Str checks them (a pair of \u escapes is two
// escapes either way; bytes beyond ASCII, valid or not, are read as
// they are), failing where Str fails, with nothing made.
func (p *Lexer) skipStr() error {
	if p.valid && p.Peek() == '"' {
		p.i++
		return p.skipValidStr()
	}
	if _, end, ok := p.plain(); ok {
		p.i = end
		return nil
	}
	if p.Null() {
		return nil
	}
	if p.Peek() != '"' {
		return p.Fail("want a string")
	}
	p.i++
	for {
		p.i = plainRun(p.b, p.i)
		for p.i < len(p.b) && p.b[p.i] >= utf8.RuneSelf {
			p.i++
		}
		if p.i >= len(p.b) {
			break
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c < 0x20:
			return p.Fail("control character in a string")
		case c != '\\':
			continue // beyond ASCII, then more plain bytes
		}
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		if _, ok := shortEscape(e); ok {
			continue
		}
		if e != 'u' {
			return p.Fail("bad escape")
		}
		if _, ok := p.hex4(); !ok {
			return p.Fail("bad \\u escape")
		}
	}
	return p.Fail("unterminated string")
}

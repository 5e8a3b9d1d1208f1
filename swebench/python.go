package swebench

import (
	"strings"
	"unicode/utf8"
)

// The official parsers are Python: their str.split(), str.strip() and \s
// split on Python's whitespace, which is Go's unicode.IsSpace plus the
// four information separators U+001C..U+001F. A parser that used Go's
// strings.Fields would read a line with one of those as one word where
// SWE-bench reads two.

// pySpace reports whether r is whitespace to Python's str.isspace.
func pySpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pyReSpace is Python's \s in a str pattern, as a Go character class.
const pyReSpace = `[\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// pySplit is Python's s.split() with no separator.
func pySplit(s string) []string { return strings.FieldsFunc(s, pySpace) }

// pyStrip is Python's s.strip() with no argument.
func pyStrip(s string) string { return strings.TrimFunc(s, pySpace) }

// pyLines is Python's s.split("\n").
func pyLines(s string) []string { return strings.Split(s, "\n") }

// validText is the log as Python would read it: the official harness
// opens it as UTF-8 and fails on a byte that is not; we read such a byte as
// U+FFFD rather than fail.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

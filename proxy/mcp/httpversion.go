package mcp

import (
	"errors"
	"strings"
)

// errFaultyFraming is a message the relay will not frame: a
// Transfer-Encoding in an HTTP/1.0 message, which RFC 9112 (6.1) says to
// treat as faulty framing and close the connection after. Servers differ
// here (net/http ignores the header and frames by length, others chunk),
// so any framing the relay chose could be a second request to the server
// that the relay never read; it closes the connection instead.
var errFaultyFraming = errors.New("transfer-encoding in a message before HTTP/1.1")

// faultyFraming reports whether h is such a message.
func (h *head) faultyFraming() bool {
	return !h.atLeast11() && h.get("transfer-encoding") != ""
}

// atLeast11 reports whether h's HTTP version is 1.1 or later (a version
// that is not HTTP/d.d counts as 1.1: net/http refuses the message).
func (h *head) atLeast11() bool {
	proto := h.first
	if strings.HasPrefix(proto, "HTTP/") {
		proto, _, _ = strings.Cut(proto, " ") // a response's status line
	} else if i := strings.LastIndexByte(proto, ' '); i >= 0 {
		proto = proto[i+1:] // a request line's last field
	}
	v, ok := strings.CutPrefix(proto, "HTTP/")
	if !ok || len(v) != 3 || v[1] != '.' || !isDigit(v[0]) || !isDigit(v[2]) {
		return true
	}
	return v[0] > '1' || v[0] == '1' && v[2] >= '1'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

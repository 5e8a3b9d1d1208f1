package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// head is an HTTP/1.1 message's start line and header lines, as they
// came: what the HTTP relay reads, looks at and writes of a message.
type head struct {
	first string
	lines []string // "Name: value", without line ends
}

// readHead reads a start line and headers, up to the blank line. The
// head's text is copied once, and its lines are pieces of that copy (a
// string per line cost a fifth of the HTTP relay's CPU per call); a head
// that came whole, as nearly every one does, is taken from the buffer
// as it lies.
func readHead(br *bufio.Reader) (*head, error) {
	if _, err := br.Peek(1); err != nil {
		return nil, err
	}
	if buf, _ := br.Peek(br.Buffered()); buf[0] != '\r' && buf[0] != '\n' {
		if text, n := headIn(buf); n > 0 {
			h := splitHead(string(text))
			br.Discard(n)
			return h, nil
		}
	}
	return readHeadByParts(br)
}

// headIn finds a whole head at the start of buf: its text up to the blank
// line, and how many bytes it takes with that line (0: not all here).
func headIn(buf []byte) (text []byte, n int) {
	for start := 0; start < len(buf) && start <= 1<<20; {
		i := bytes.IndexByte(buf[start:], '\n')
		if i < 0 {
			return nil, 0
		}
		if start > 0 && len(trimEOL(buf[start:start+i+1])) == 0 {
			return buf[:start], start + i + 1
		}
		start += i + 1
	}
	return nil, 0
}

// readHeadByParts is readHead for a head that has not all come: line by
// line, into one copy.
func readHeadByParts(br *bufio.Reader) (*head, error) {
	var raw []byte
	start := 0 // where the line being read starts in raw
	for total := 0; ; {
		part, err := br.ReadSlice('\n')
		if total += len(part); total > 1<<20 { // stray line ends count too
			return nil, errors.New("header too large")
		}
		raw = append(raw, part...)
		if err == bufio.ErrBufferFull {
			continue // a line longer than the buffer: the rest follows
		}
		if err != nil {
			return nil, err
		}
		switch l := trimEOL(raw[start:]); {
		case len(l) == 0 && start == 0:
			raw = raw[:0] // a stray line end between messages
		case len(l) == 0:
			return splitHead(string(raw[:start])), nil
		default:
			start = len(raw)
		}
	}
}

// trimEOL cuts the \r and \n a line ends with.
func trimEOL[T string | []byte](l T) T {
	for len(l) > 0 && (l[len(l)-1] == '\n' || l[len(l)-1] == '\r') {
		l = l[:len(l)-1]
	}
	return l
}

// splitHead is a head from its text (every line ending in \n).
func splitHead(text string) *head {
	h := &head{lines: make([]string, 0, strings.Count(text, "\n"))}
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		line = trimEOL(line)
		if h.first == "" {
			h.first = line
			continue
		}
		h.lines = append(h.lines, line)
	}
	return h
}

// named says whether header line l is the header name (an ASCII name,
// matched case-blind, space around it ignored) and gives its value. It
// is called for every line each time the relay asks for a header, some
// fifteen times a message: a name whose length differs is passed over
// without trimming or folding it. Only ASCII folds: a name spelt with
// a character that folds to one of its letters ("Tranſfer-Encoding") is
// another header, as it is to the server, which must frame each message
// as the relay does.
func named(l, name string) (value string, ok bool) {
	i := strings.IndexByte(l, ':')
	if i < 0 {
		return "", false
	}
	k := l[:i]
	if len(k) != len(name) {
		if len(k) == 0 || !maySpace(k[0]) && !maySpace(k[len(k)-1]) {
			return "", false
		}
		k = strings.TrimSpace(k)
	}
	// equal lengths against an ASCII name: only ASCII can fold to it
	if len(k) != len(name) || !strings.EqualFold(k, name) {
		return "", false
	}
	return strings.TrimSpace(l[i+1:]), true
}

// maySpace says whether c can be part of what strings.TrimSpace trims:
// ASCII space, or a byte of a character beyond ASCII.
func maySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c >= 0x80
}

func (h *head) get(name string) string {
	for _, l := range h.lines {
		if v, ok := named(l, name); ok {
			return v
		}
	}
	return ""
}

// has reports whether a comma-separated header holds token.
func (h *head) has(name, token string) bool {
	for _, l := range h.lines {
		if v, ok := named(l, name); ok {
			for v != "" {
				var t string
				t, v, _ = strings.Cut(v, ",")
				if strings.EqualFold(strings.TrimSpace(t), token) {
					return true
				}
			}
		}
	}
	return false
}

// set replaces a header's value (or adds the header).
func (h *head) set(name, value string) {
	for i, l := range h.lines {
		if _, ok := named(l, name); ok {
			k, _, _ := strings.Cut(l, ":")
			h.lines[i] = k + ": " + value
			return
		}
	}
	h.lines = append(h.lines, name+": "+value)
}

// status is a response's status code.
func (h *head) status() string {
	_, rest, _ := strings.Cut(h.first, " ")
	code, _, _ := strings.Cut(rest, " ")
	return code
}

// closeDelimited reports whether a response's body runs to the end of the
// connection (no length, not chunked).
func (h *head) closeDelimited() bool {
	return h.get("content-length") == "" && !h.has("transfer-encoding", "chunked") &&
		h.status() != "204" && h.status() != "304" && !strings.HasPrefix(h.status(), "1")
}

// length is the Content-Length, at most limit.
func (h *head) length(limit int64) (int64, error) {
	n, err := strconv.ParseInt(h.get("content-length"), 10, 64)
	if err != nil || n < 0 || n > limit {
		return 0, fmt.Errorf("bad content-length %q", h.get("content-length"))
	}
	return n, nil
}

func (h *head) del(name string) {
	kept := h.lines[:0]
	for _, l := range h.lines {
		if _, ok := named(l, name); !ok {
			kept = append(kept, l)
		}
	}
	h.lines = kept
}

// bytes is the head as it goes on the wire.
func (h *head) bytes() []byte {
	n := len(h.first) + 4
	for _, l := range h.lines {
		n += len(l) + 2
	}
	b := make([]byte, 0, n)
	b = append(append(b, h.first...), "\r\n"...)
	for _, l := range h.lines {
		b = append(append(b, l...), "\r\n"...)
	}
	return append(b, "\r\n"...)
}

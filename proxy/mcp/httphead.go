package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// head is an HTTP/1.1 message's start line and header lines, as they
// came: what the HTTP relay reads, looks at and writes of a message.
type head struct {
	first string
	lines []string // "Name: value", without line ends
	// names is each line's header among those the relay asks of every
	// message (hOther for the rest): found once as the head is read, where
	// asking each header's name of every line cost a message some fifteen
	// scans of its head
	names []hdr
	// the lines and names of a head of up to 16 lines, as nearly all are
	lineBuf [16]string
	nameBuf [16]hdr
}

// hdr names a header the relay asks of every message.
type hdr uint8

const (
	hOther hdr = iota // any other header, or a line that is none
	hHost
	hOrigin
	hExpect
	hConnection
	hContentType
	hContentLength
	hSession // Mcp-Session-Id
	hTransferEncoding
)

// known is the header a lowercase name names, hOther for any other.
func known(name string) hdr {
	switch name {
	case "host":
		return hHost
	case "origin":
		return hOrigin
	case "expect":
		return hExpect
	case "connection":
		return hConnection
	case "content-type":
		return hContentType
	case "content-length":
		return hContentLength
	case "mcp-session-id":
		return hSession
	case "transfer-encoding":
		return hTransferEncoding
	}
	return hOther
}

// lineName is the header line l is, among those known names: the one
// for which named(l, name) holds, if any. Its name is trimmed (when its
// ends may be space) and its ASCII letters lowered once, then looked up
// as known looks up a name: only ASCII folds to an ASCII name of its
// length (see named), so a name with a byte beyond ASCII is none of them.
func lineName(l string) hdr {
	i := strings.IndexByte(l, ':')
	if i <= 0 {
		return hOther
	}
	k := l[:i]
	if maySpace(k[0]) || maySpace(k[len(k)-1]) {
		k = strings.TrimSpace(k)
	}
	var lower [len("transfer-encoding")]byte // the longest known name
	if len(k) > len(lower) {
		return hOther
	}
	for j := 0; j < len(k); j++ {
		c := k[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[j] = c
	}
	return known(string(lower[:len(k)]))
}

// readHead reads a start line and headers, up to the blank line, into a
// head of its own (see read).
func readHead(br *bufio.Reader) (*head, error) {
	h := new(head)
	return h, h.read(br)
}

// read reads a start line and headers, up to the blank line, into h, in
// place of what it held: each of a relay's goroutines reads every
// message's head into one (a head made for each was half the bytes the
// relay allocated per call). The head's text is copied once, and its
// lines are pieces of that copy (a string per line cost a fifth of the
// HTTP relay's CPU per call); a head that came whole, as nearly every one
// does, is taken from the buffer as it lies.
func (h *head) read(br *bufio.Reader) error {
	if _, err := br.Peek(1); err != nil {
		return err
	}
	if buf, _ := br.Peek(br.Buffered()); buf[0] != '\r' && buf[0] != '\n' {
		if text, n := headIn(buf); n > 0 {
			h.split(string(text))
			br.Discard(n)
			return nil
		}
	}
	return h.readByParts(br)
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

// readByParts is read for a head that has not all come: line by line,
// into one copy.
func (h *head) readByParts(br *bufio.Reader) error {
	var raw []byte
	start := 0 // where the line being read starts in raw
	for total := 0; ; {
		part, err := br.ReadSlice('\n')
		if total += len(part); total > 1<<20 { // stray line ends count too
			return errors.New("header too large")
		}
		raw = append(raw, part...)
		if err == bufio.ErrBufferFull {
			continue // a line longer than the buffer: the rest follows
		}
		if err != nil {
			return err
		}
		switch l := trimEOL(raw[start:]); {
		case len(l) == 0 && start == 0:
			raw = raw[:0] // a stray line end between messages
		case len(l) == 0:
			h.split(string(raw[:start]))
			return nil
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

// split makes h the head text is (every line ending in \n), in place of
// what it held.
func (h *head) split(text string) {
	h.first = ""
	clear(h.lines) // what an earlier head's longer lines held
	h.lines, h.names = h.lines[:0], h.names[:0]
	if h.lines == nil {
		h.lines, h.names = h.lineBuf[:0], h.nameBuf[:0]
	}
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		line = trimEOL(line)
		if h.first == "" {
			h.first = line
			continue
		}
		h.lines = append(h.lines, line)
		h.names = append(h.names, lineName(line))
	}
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

// each calls f with every line that is header name (lowercase ASCII)
// and its value, until f returns false.
func (h *head) each(name string, f func(i int, value string) bool) {
	id := known(name)
	for i := range h.lines {
		if v, ok := h.value(i, id, name); ok && !f(i, v) {
			return
		}
	}
}

// value is line i's value when it is header name (id, its known header,
// or hOther for a name not known).
func (h *head) value(i int, id hdr, name string) (string, bool) {
	l := h.lines[i]
	if id == hOther {
		return named(l, name)
	}
	if h.names[i] != id {
		return "", false
	}
	return strings.TrimSpace(l[strings.IndexByte(l, ':')+1:]), true
}

func (h *head) get(name string) string {
	var value string
	h.each(name, func(_ int, v string) bool { value = v; return false })
	return value
}

// has reports whether a comma-separated header holds token.
func (h *head) has(name, token string) bool {
	found := false
	h.each(name, func(_ int, v string) bool {
		for v != "" && !found {
			var t string
			t, v, _ = strings.Cut(v, ",")
			found = strings.EqualFold(strings.TrimSpace(t), token)
		}
		return !found
	})
	return found
}

// set replaces a header's value (or adds the header).
func (h *head) set(name, value string) {
	at := -1
	h.each(name, func(i int, _ string) bool { at = i; return false })
	if at < 0 {
		h.lines = append(h.lines, name+": "+value)
		h.names = append(h.names, known(name))
		return
	}
	k, _, _ := strings.Cut(h.lines[at], ":")
	h.lines[at] = k + ": " + value
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
	id := known(name)
	lines, names := h.lines[:0], h.names[:0] // line i is looked at before any is written over it
	for i := range h.lines {
		if _, ok := h.value(i, id, name); !ok {
			lines, names = append(lines, h.lines[i]), append(names, h.names[i])
		}
	}
	h.lines, h.names = lines, names
}

// writeTo writes the head as it goes on the wire.
func (h *head) writeTo(w io.StringWriter) {
	w.WriteString(h.first)
	w.WriteString("\r\n")
	for _, l := range h.lines {
		w.WriteString(l)
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
}

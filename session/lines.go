package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// freeLine is what a line may hold without drawing on the hub's budget
// for long lines: the reader's own buffer's size, which a begin, an end
// and a relayed call fit in many times over.
const freeLine = 64 << 10

// lineBudget is how many bytes the hub's connections may hold, together,
// in lines past freeLine: clients the hub admits (a hook, a relay) may
// still be driven by the agent, and each line may be up to maxLine long,
// so without it a few connections streaming without a newline held the
// hub's memory without bound. A line that would go over it is dropped,
// as one over the limit is, and its connection goes on.
type lineBudget struct{ left atomic.Int64 }

func newLineBudget(n int) *lineBudget {
	b := &lineBudget{}
	b.left.Store(int64(n))
	return b
}

// take reserves n bytes, or reports that they are not there.
func (b *lineBudget) take(n int) bool {
	if b.left.Add(-int64(n)) >= 0 {
		return true
	}
	b.left.Add(int64(n))
	return false
}

func (b *lineBudget) give(n int) { b.left.Add(int64(n)) }

// WithLineBudget sets how many bytes all connections together may hold
// in long lines (by default twice the line limit: one line at the limit
// fits beside another's).
func WithLineBudget(n int) Option { return func(h *Hub) { h.budget = newLineBudget(n) } }

// lineReader reads newline-ended lines of at most limit bytes; a longer
// one, or one the hub's budget has no room for, is reported (Dropped)
// and skipped to its newline, not an error that ends the connection as
// bufio.Scanner's is.
type lineReader struct {
	br     *bufio.Reader
	limit  int
	budget *lineBudget
	buf    []byte
	// reserved is what buf holds of the budget (0 while it is no longer
	// than freeLine)
	reserved int
	dropped  string
}

func newLineReader(r io.Reader, limit int, budget *lineBudget) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, freeLine), limit: limit, budget: budget}
}

// lineReaderFor is a line reader of c, its buffer reused from a
// connection served before: a shim is a connection per command, and a
// fresh 64 KiB buffer each time was an allocation on every begin's path
// and most of the hub's garbage.
func (h *Hub) lineReaderFor(c io.Reader) *lineReader {
	if l, ok := h.readers.Get().(*lineReader); ok {
		l.br.Reset(c)
		l.limit = h.lineLimit() // buf and dropped: Scan starts each line afresh
		return l
	}
	return newLineReader(c, h.lineLimit(), h.budget)
}

// doneReading gives a reader's buffer back once its connection is done.
func (h *Hub) doneReading(l *lineReader) {
	l.br.Reset(nil)
	l.release()
	h.readers.Put(l)
}

// release gives back what a long line drew from the budget, and its
// buffer with it.
func (l *lineReader) release() {
	if l.reserved > 0 {
		l.budget.give(l.reserved)
		l.reserved, l.buf = 0, nil
	}
}

// Scan reads the next line; false at the end of the input.
func (l *lineReader) Scan() bool {
	l.release()
	l.buf, l.dropped = l.buf[:0], ""
	for {
		chunk, err := l.br.ReadSlice('\n')
		if l.dropped == "" {
			l.add(chunk)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			// a last line without its newline still counts
			return len(l.buf) > 0 || l.dropped != ""
		}
		if l.dropped == "" {
			l.buf = bytes.TrimSuffix(bytes.TrimSuffix(l.buf, []byte("\n")), []byte("\r"))
		}
		return true
	}
}

// add appends chunk to the line, or drops the line when it would be too
// long or the budget has no room for it.
func (l *lineReader) add(chunk []byte) {
	n := len(l.buf) + len(chunk)
	switch {
	case n > l.limit+1:
		l.dropped = fmt.Sprintf("longer than the hub's limit of %d bytes", l.limit)
	case n > cap(l.buf) && n > freeLine && !l.grow(n):
		l.dropped = "the hub holds as much of long lines as it may now; this one was dropped"
	default:
		l.buf = append(l.buf, chunk...)
		return
	}
	l.release()
	l.buf = l.buf[:0]
}

// grow makes room in buf for n bytes, drawn from the budget: doubling, as
// append does, but never past the limit, and only what the budget gives.
func (l *lineReader) grow(n int) bool {
	size := min(max(2*cap(l.buf), n), l.limit+1)
	if !l.budget.take(size - l.reserved) {
		return false
	}
	l.reserved = size
	b := make([]byte, len(l.buf), size)
	copy(b, l.buf)
	l.buf = b
	return true
}

// Bytes is the line, without its newline.
func (l *lineReader) Bytes() []byte { return l.buf }

// Dropped says why the line was dropped ("" when it was not).
func (l *lineReader) Dropped() string { return l.dropped }

// refuse tells a client why it is not served, if its socket takes the
// line at once (the hub never waits on a client it refuses).
func refuse(c io.Writer, why error) {
	line, _ := json.Marshal(Response{Error: why.Error()})
	line = append(line, '\n')
	switch c := c.(type) {
	case *fdConn:
		rawIO(syscall.SYS_SENDTO, c.fd, line, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
	case net.Conn:
		c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
		c.Write(line)
	}
}

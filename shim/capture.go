package shim

import (
	"io"
	"os"
	"sync"

	"github.com/swetouch/swetouch/session/wire"
)

// capture keeps the head and tail of a command's combined output, in the
// order it arrived, for the hub's output-derived scopes.
type capture struct {
	mu    sync.Mutex
	head  []byte
	tail  []byte // ring of the last maxCapture bytes after the head filled
	total int
}

func (c *capture) Write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	if room := maxCapture - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*maxCapture {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-maxCapture:]...)
	}
}

func (c *capture) end(status int) wire.End {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := wire.End{Exit: status, Bytes: c.total}
	if len(c.tail) <= maxCapture && c.total == len(c.head)+len(c.tail) {
		e.Output = string(c.head) + string(c.tail)
		return e
	}
	e.Output, e.Tail, e.Elided = string(c.head), string(c.tail[max(0, len(c.tail)-maxCapture):]), true
	return e
}

// copyOut copies the shell's output to dst as it is produced, unchanged,
// keeping a copy in c.
func copyOut(dst *os.File, src io.Reader, c *capture) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			dst.Write(buf[:n])
			c.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

package wire

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/swetouch/swetouch/event"
)

// Records are written in batches: by the next call, when recordBatch
// are queued, or every recordFlush, whichever is first; and at Close. A
// record costs the relay that sends it no system call of its own.
const (
	recordBatch = 64
	recordFlush = 100 * time.Millisecond
)

// Record sends an event that is not an action (Hub.Record) without
// waiting: it keeps its place among this client's calls; errors are
// dropped.
func (c *Client) Record(ev event.Event) {
	ev.Raw = append(json.RawMessage(nil), ev.Raw...) // the caller's buffer is reused
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.qclosed {
		return
	}
	if !c.recorded {
		c.recorded = true
		go c.flusher()
	}
	c.queue = append(c.queue, ev)
	if len(c.queue) >= recordBatch {
		select {
		case c.kick <- struct{}{}:
		default: // a flush is due already
		}
	}
}

// flusher writes queued records until Close.
func (c *Client) flusher() {
	defer close(c.flushed)
	tick := time.NewTicker(recordFlush)
	defer tick.Stop()
	for open := true; open; {
		select {
		case _, open = <-c.kick:
		case <-tick.C:
		}
		c.mu.Lock()
		c.flushLocked()
		c.mu.Unlock()
	}
}

// flushLocked writes the queued records; c.mu is held.
func (c *Client) flushLocked() {
	c.qmu.Lock()
	q := c.queue
	c.queue = nil
	c.qmu.Unlock()
	if len(q) == 0 {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range q {
		enc.Encode(Request{Op: "record", Event: &q[i], NoReply: true})
	}
	c.conn.Write(buf.Bytes()) // one write for the lot
}

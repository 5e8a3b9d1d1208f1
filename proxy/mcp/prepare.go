package mcp

import (
	"sync"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/session"
)

// prepared is what a call's end tells the hub that its request alone
// decides: its events, and a told call's begin. It is made once the
// request has gone on, while the server works on it (Later.Send after
// the request's write), or at the call's end if that comes first: made
// after the result instead, cold, it held the processor the client was
// woken on for some ten µs a call here.
type prepared struct {
	once sync.Once
	toolCall
	told bool

	events []event.Event
	begin  session.Begin
	ok     bool // begin was made (a told call whose arguments read)
}

// prepare makes p, once.
func (r *Relay) prepare(p *prepared) {
	p.once.Do(func() {
		p.events = r.classify.classifyText(p.tool, p.args)
		if p.told {
			p.begin, p.ok = r.beginOf(p.toolCall)
		}
	})
}

// eventsOf is the events c's end reports.
func (r *Relay) eventsOf(c call) []event.Event {
	if c.prep == nil {
		return r.classify.classifyText(c.tool, c.args)
	}
	r.prepare(c.prep)
	return c.prep.events
}

// toldBegin is the begin a told call is reported with; false when its
// arguments cannot be read (said in the log).
func (r *Relay) toldBegin(c call) (session.Begin, bool) {
	if c.prep == nil {
		return r.beginOf(c.toolCall)
	}
	r.prepare(c.prep)
	return c.prep.begin, c.prep.ok
}

// FromClientLater is FromClientIn for an owner that writes the line and
// then sends what later holds (Later.Send): the preparation of the end
// of a call the hub hears of, done while the server works on it.
func (r *Relay) FromClientLater(scope string, line []byte, later *Later) []byte {
	return r.fromClient(scope, line, later)
}

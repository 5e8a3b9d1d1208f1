package session

import (
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/user"
)

// historyChunk is how many events a chunk of the history holds (some
// 70 KB): an allocation of its own every few hundred events.
const historyChunk = 256

// history is every event the hub has recorded, in order, for the user
// to see. It is kept in chunks that never move. A slice grown by append
// copies all it holds into fresh memory at each growth, a quarter more
// each time once past 256 elements: each event was copied some four
// times, and each copy faulted in new pages: some 7% of the hub's CPU per
// MCP call past a few hundred events (docs/runtime.md, fifteenth stop).
type history struct {
	chunks []*[historyChunk]event.Event
	n      int
}

// add appends ev. Only the slot past the last event is written, so a
// view taken before sees its events unchanged.
func (h *history) add(ev event.Event) {
	if h.n%historyChunk == 0 {
		h.chunks = append(h.chunks, new([historyChunk]event.Event))
	}
	h.chunks[h.n/historyChunk][h.n%historyChunk] = ev
	h.n++
}

// view is the history as it stands now, for one decision: the events
// added later are not in it.
func (h *history) view() user.History {
	return historyView{chunks: h.chunks[:len(h.chunks):len(h.chunks)], n: h.n}
}

// historyView is a history's first n events. Its Events copies them out:
// a policy asks for them only when it writes a message or a turn ends,
// not on each call.
type historyView struct {
	chunks []*[historyChunk]event.Event
	n      int
}

func (v historyView) Events() []event.Event {
	out := make([]event.Event, 0, v.n)
	for i, c := range v.chunks {
		out = append(out, c[:min(historyChunk, v.n-i*historyChunk)]...)
	}
	return out
}

package session

import (
	"strings"
	"unicode/utf8"

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

// add appends ev, cut down to what a user reads of it: its output a
// preview, its command and diff their first historyHead bytes, its raw
// message left out (the trajectory keeps them whole). Only the slot past
// the last event is written, so a view taken before sees its events
// unchanged.
func (h *history) add(ev event.Event) {
	ev.Output = preview(ev.Output)
	ev.Command, ev.Diff = clipped(ev.Command), clipped(ev.Diff)
	if len(ev.Raw) > historyHead {
		ev.Raw = nil
	}
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

// The most of an output the history keeps: its first historyHead bytes
// and its last historyTail. A user's prompt shows an action's first KiB
// (user/prompt.go); the trajectory keeps the output whole.
const (
	historyHead = 4 << 10
	historyTail = 1 << 10
)

// preview is o as the history keeps it: whole when short, else its head
// and tail, copied, with Elided set and Bytes the whole's size. Kept
// whole, every read a relay told of stayed in the hub's memory for the
// session: 16 KiB a read, each faulting in fresh pages, a tenth of the
// hub's CPU on such reads (docs/runtime.md, eighteenth stop).
func preview(o *event.Output) *event.Output {
	if o == nil || len(o.Text)+len(o.Head)+len(o.Tail) <= historyHead+historyTail {
		return o
	}
	head, tail, size := o.Head, o.Tail, o.Bytes
	if !o.Elided {
		head, tail, size = o.Text, o.Text, len(o.Text)
	}
	return &event.Output{
		Head:   strings.Clone(headOf(head, historyHead)),
		Tail:   strings.Clone(tailOf(tail, historyTail)),
		Elided: true,
		Bytes:  size,
		SHA256: o.SHA256,
	}
}

// clipped is s as the history keeps it: whole when short, else a copy
// of its first historyHead bytes. Kept whole, every command a client
// sent stayed in the hub's memory for the session: a client the hub
// admits (a shim, a hook) is still the agent's to drive, and ten
// thousand 100 KB commands held a gigabyte. A user's prompt shows a
// command's first 600 bytes (user/prompt.go), and no user reads a diff
// from the history.
func clipped(s string) string {
	if len(s) <= historyHead {
		return s
	}
	return strings.Clone(headOf(s, historyHead))
}

// headOf is s's first n bytes at most, not splitting a character.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailOf is s's last n bytes at most, not splitting a character.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

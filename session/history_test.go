package session

import (
	"slices"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/event"
)

func seqs(evs []event.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

func upTo(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

// TestHistoryViews: a view holds the events added before it was taken,
// in order, across the chunks' edges, and none added after.
func TestHistoryViews(t *testing.T) {
	for _, n := range []int{0, 1, historyChunk - 1, historyChunk, historyChunk + 1, 3*historyChunk + 7} {
		var h history
		var views []int
		var taken []func() []event.Event
		for i := range n + historyChunk {
			if i%97 == 0 || i == n {
				v := h.view()
				views, taken = append(views, h.n), append(taken, v.Events)
			}
			h.add(event.Event{Seq: int64(i + 1), Command: "c"})
		}
		for k, events := range taken {
			if got := seqs(events()); !slices.Equal(got, upTo(views[k])) {
				t.Errorf("n=%d: the view taken at %d events holds seqs %v", n, views[k], got)
			}
		}
	}
}

// TestHistoryViewWhileAdding: a view is read while the hub adds events
// past it, as a policy may read what it was given on a goroutine of its
// own (run with -race: the two touch no memory in common).
func TestHistoryViewWhileAdding(t *testing.T) {
	var h history
	for i := range historyChunk + 3 {
		h.add(event.Event{Seq: int64(i + 1)})
	}
	v := h.view()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			if got := seqs(v.Events()); !slices.Equal(got, upTo(historyChunk+3)) {
				t.Errorf("the view changed: %d events", len(got))
				return
			}
		}
	}()
	for i := historyChunk + 3; i < 3*historyChunk; i++ {
		h.add(event.Event{Seq: int64(i + 1)})
	}
	wg.Wait()
}

// BenchmarkHistoryAdd is what keeping each event for the user costs the
// hub: with the history a slice grown by append, each event was copied
// some four times into fresh pages.
func BenchmarkHistoryAdd(b *testing.B) {
	ev := event.Event{Kind: event.Read, Source: "mcp", Actor: event.Agent, Command: "mcp read_text_file {}",
		Scopes: []event.Scope{event.FileScope("src/a.py")}}
	b.Run("chunks", func(b *testing.B) {
		b.ReportAllocs()
		var h history
		for b.Loop() {
			h.add(ev)
		}
	})
	// what it replaced, for the ratio
	b.Run("slice", func(b *testing.B) {
		b.ReportAllocs()
		var h []event.Event
		for b.Loop() {
			h = append(h, ev)
		}
	})
}

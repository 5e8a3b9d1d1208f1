package session

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

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

// TestHistoryPreview: the history keeps a short output as it is and a
// long one as a head and tail of their own (the whole text is not kept
// alive), never splitting a character, with its size and hash kept.
func TestHistoryPreview(t *testing.T) {
	long := strings.Repeat("def f(x):\n    return x\n", 1000) // 23 KB
	wide := strings.Repeat("é", 3000)                         // 6,000 bytes, two a character
	cases := []struct {
		name       string
		in         *event.Output
		head, tail string
		bytes      int
		whole      bool
	}{
		{name: "none"},
		{name: "short", in: &event.Output{Text: "ok\n"}, whole: true},
		{name: "at the limit", in: &event.Output{Text: strings.Repeat("x", historyHead+historyTail)}, whole: true},
		{name: "long", in: &event.Output{Text: long}, head: long[:historyHead], tail: long[len(long)-historyTail:], bytes: len(long)},
		{name: "characters", in: &event.Output{Text: wide}, head: wide[:historyHead], tail: wide[len(wide)-historyTail:], bytes: len(wide)},
		{name: "characters cut", in: &event.Output{Text: "a" + wide}, head: ("a" + wide)[:historyHead-1], tail: wide[len(wide)-historyTail:], bytes: len(wide) + 1},
		{name: "characters cut at the tail", in: &event.Output{Text: wide + "a"}, head: wide[:historyHead], tail: (wide + "a")[len(wide)+1-historyTail+1:], bytes: len(wide) + 1},
		{name: "elided", in: &event.Output{Head: long[:8<<10], Tail: long[len(long)-8<<10:], Elided: true, Bytes: 90000, SHA256: "ab"},
			head: long[:historyHead], tail: long[len(long)-historyTail:], bytes: 90000},
	}
	for _, c := range cases {
		got := preview(c.in)
		switch {
		case c.in == nil || c.whole:
			if got != c.in {
				t.Errorf("%s: kept as %+v, not as it was", c.name, got)
			}
			continue
		case got.Text != "" || got.Head != c.head || got.Tail != c.tail || !got.Elided || got.Bytes != c.bytes || got.SHA256 != c.in.SHA256:
			t.Errorf("%s: kept head %d bytes, tail %d, text %d, elided %v, bytes %d, sha %q", c.name, len(got.Head), len(got.Tail), len(got.Text), got.Elided, got.Bytes, got.SHA256)
		}
		if !utf8.ValidString(got.Head) || !utf8.ValidString(got.Tail) {
			t.Errorf("%s: a character split", c.name)
		}
		whole := c.in.Text + c.in.Head + c.in.Tail
		for _, s := range []string{got.Head, got.Tail} {
			if within(s, c.in.Text) || within(s, c.in.Head) || within(s, c.in.Tail) {
				t.Errorf("%s: a part shares the whole output's memory (%d bytes kept alive)", c.name, len(whole))
			}
		}
	}
	var h history
	h.add(event.Event{Seq: 1, Output: &event.Output{Text: long}})
	if got := h.view().Events()[0].Output; got.Head != long[:historyHead] || got.Bytes != len(long) {
		t.Errorf("the history kept %d bytes of head, size %d", len(got.Head), got.Bytes)
	}
}

// within says whether part's bytes lie in whole's memory.
func within(part, whole string) bool {
	if part == "" || whole == "" {
		return false
	}
	p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
	return p >= w && p < w+uintptr(len(whole))
}

// TestHistoryClipsWhatClientsSend: an event's long command and diff are
// kept as their heads, copies that share no memory with the event's own
// strings, and a long raw message not at all; short ones stay whole.
func TestHistoryClipsWhatClientsSend(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	var h history
	h.add(event.Event{Seq: 1, Command: long, Diff: long, Raw: []byte(`"` + long + `"`)})
	h.add(event.Event{Seq: 2, Command: "ls", Diff: "+a\n", Raw: []byte(`{}`)})
	evs := h.view().Events()
	big, small := evs[0], evs[1]
	if len(big.Command) != historyHead || len(big.Diff) != historyHead || big.Raw != nil {
		t.Errorf("kept a command of %d bytes, a diff of %d, a raw message of %d", len(big.Command), len(big.Diff), len(big.Raw))
	}
	if unsafe.StringData(big.Command) == unsafe.StringData(long) {
		t.Error("the clipped command shares the whole's memory")
	}
	if small.Command != "ls" || small.Diff != "+a\n" || string(small.Raw) != "{}" {
		t.Errorf("a short event changed: %+v", small)
	}
}

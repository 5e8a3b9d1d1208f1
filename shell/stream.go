package shell

import (
	"strings"

	"github.com/swetouch/swetouch/event"
)

// rng is a range of lines, 1-based inclusive; b == 0 means "to the end".
type rng struct{ a, b int }

// stream is what flows through a pipeline when its source is a file: which
// lines of which file, and in what form. Filters narrow it; the read
// findings of its source are rewritten as it narrows.
type stream struct {
	files    []string
	ranges   []rng // selected lines; nil = the whole file
	numbered bool  // each line carries its file line number (nl, cat -n)
	grepN    bool  // each line is prefixed "N:" or "N-" (grep -n over one whole file)
	tail     int   // > 0: only the last tail lines of the selection
	subset   bool  // an unknown subset of the selection (grep, awk filters)
	exact    bool  // the lines are shown verbatim, in file order
	shown    bool  // reached the command's output
	grep     bool  // grep over file operands: hits in the output name its lines
	grepBase []rng // grep -n over a selection: its numbers count from the selection's start
	// partial: a program prints what it likes of it, maybe nothing (a
	// script's reads); only blocks of the file found in the output narrow it
	partial bool
}

// source starts a stream over files; its reads are recorded when the walk
// ends, from the narrowest selection the pipeline reached.
func (w *walker) source(files []string, ranges []rng, numbered bool) *stream {
	st := &stream{files: files, ranges: ranges, numbered: numbered, exact: !numbered}
	w.streams = append(w.streams, st)
	return st
}

// scopes returns the read scopes of a stream's final selection.
func (w *walker) scopes(st *stream) []event.Scope {
	var out []event.Scope
	for _, f := range st.files {
		if len(st.files) != 1 {
			out = append(out, event.FileScope(f))
			continue
		}
		ranges := st.ranges
		if st.tail > 0 {
			ranges = w.lastLines(f, ranges, st.tail)
		}
		ranges = w.closeRanges(f, ranges)
		if ranges == nil {
			out = append(out, event.FileScope(f))
			continue
		}
		for _, r := range ranges {
			out = append(out, event.LineScope(f, r.a, r.b))
		}
	}
	return out
}

// lineCount returns the number of lines of a file, when its content is known.
func (w *walker) lineCount(f string) (int, bool) {
	c, ok := w.s.content(f)
	if !ok {
		return 0, false
	}
	return countLines(c), true
}

func countLines(c string) int {
	if c == "" {
		return 0
	}
	n := strings.Count(c, "\n")
	if !strings.HasSuffix(c, "\n") {
		n++
	}
	return n
}

// closeRanges resolves open ends against the file's length; without it an
// open range makes the scope the whole file (a superset, never a miss).
func (w *walker) closeRanges(f string, rs []rng) []rng {
	if rs == nil {
		return nil
	}
	out := make([]rng, 0, len(rs))
	for _, r := range rs {
		if r.b == 0 {
			n, ok := w.lineCount(f)
			if !ok {
				return nil
			}
			if r.a > n {
				continue
			}
			r.b = n
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// lastLines resolves "the last n lines of the selection".
func (w *walker) lastLines(f string, sel []rng, n int) []rng {
	if sel == nil {
		total, ok := w.lineCount(f)
		if !ok {
			return nil
		}
		sel = []rng{{1, total}}
	}
	sel = w.closeRanges(f, sel)
	if sel == nil {
		return nil
	}
	return takeLast(sel, n)
}

func takeLast(sel []rng, n int) []rng {
	var out []rng
	for i := len(sel) - 1; i >= 0 && n > 0; i-- {
		r := sel[i]
		size := r.b - r.a + 1
		if size <= n {
			out = append([]rng{r}, out...)
			n -= size
			continue
		}
		out = append([]rng{{r.b - n + 1, r.b}}, out...)
		n = 0
	}
	return out
}

// selectLines narrows a stream by a selection over the stream's own line
// numbers (what `sed -n`, `head`, `awk NR` see).
func (w *walker) selectLines(st *stream, sel []rng) {
	if st == nil {
		return
	}
	if st.subset || len(st.files) != 1 {
		st.exact = false
		return
	}
	if st.tail > 0 {
		base := w.lastLines(st.files[0], st.ranges, st.tail)
		if base == nil {
			// offset unknown: keep the whole tail as the superset
			return
		}
		st.ranges, st.tail = base, 0
	}
	if st.ranges == nil {
		st.ranges = sel
	} else {
		st.ranges = mapRanges(st.ranges, sel)
	}
}

// mapRanges maps ranges over stream lines through the file ranges the
// stream is made of.
func mapRanges(base, sel []rng) []rng {
	var out []rng
	for _, s := range sel {
		k := 1 // stream line number at the start of the current base range
		for _, b := range base {
			var size int
			if b.b == 0 {
				size = -1
			} else {
				size = b.b - b.a + 1
			}
			lo := max(s.a, k)
			var hi int
			switch {
			case size < 0 && s.b == 0:
				out = append(out, rng{b.a + lo - k, 0})
				continue
			case size < 0:
				hi = s.b
			case s.b == 0:
				hi = k + size - 1
			default:
				hi = min(s.b, k+size-1)
			}
			if lo <= hi {
				out = append(out, rng{b.a + lo - k, b.a + hi - k})
			}
			if size < 0 {
				break
			}
			k += size
		}
	}
	return out
}

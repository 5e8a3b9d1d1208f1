package patch

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// sides returns the old and new texts of a run of hunk lines.
func sides(ls []Line) (old, new []string) {
	for _, l := range ls {
		if l.Kind != '+' {
			old = append(old, l.Text)
		}
		if l.Kind != '-' {
			new = append(new, l.Text)
		}
	}
	return
}

// placer locates the hunks of one file diff in the file's image. Each hunk
// becomes an edit of the image; edits never overlap.
type placer struct {
	im    *image
	edits []edit
	// where records, per hunk report, the image line it landed at and how
	// many result lines it has, to number the report in the new file.
	where []landing
}

type landing struct {
	edit  int // index in edits, or -1 (already applied)
	at, n int
}

// free reports whether image lines [from, to) are untouched by the edits
// placed so far (an insertion, from == to, may sit at an edit's edge).
func (pl *placer) free(from, to int) bool {
	for _, e := range pl.edits {
		if from < e.to && e.from < to || from == to && e.from < from && from < e.to || e.from == e.to && from < e.from && e.from < to {
			return false
		}
	}
	return true
}

// find is image.find without places already edited.
func (pl *placer) find(block []string, norm bool) []int {
	ps := pl.im.find(block, norm)
	return slices.DeleteFunc(ps, func(p int) bool { return !pl.free(p, p+len(block)) })
}

// nearest picks the exact match closest to want; ok is false on a tie.
func nearest(ps []int, want int) (int, bool) {
	i, d1, d2 := closest(ps, want)
	if i < 0 {
		return -1, false
	}
	return ps[i], d1 != d2
}

// closest returns the index of the candidate nearest to want, its
// distance, and the distance of the runner-up (-1 when there is none).
func closest(ps []int, want int) (best, d1, d2 int) {
	best, d1, d2 = -1, -1, -1
	for i, p := range ps {
		d := p - want
		if d < 0 {
			d = -d
		}
		switch {
		case best < 0 || d < d1:
			best, d2, d1 = i, d1, d
		case d2 < 0 || d < d2:
			d2 = d
		}
	}
	return best, d1, d2
}

// locate places one hunk; delta is how far from their recorded positions
// earlier hunks landed.
func (pl *placer) locate(h *Hunk, delta int) HunkReport {
	old, new := sides(h.Lines)
	want := h.OldStart - 1 + delta
	if h.OldLines == 0 {
		want = h.OldStart + delta
	}
	want = max(want, 0)
	// 1. exact at the recorded position
	if pl.im.matchAt(old, want, false) && pl.free(want, want+len(old)) {
		return pl.place(h.Lines, want, Exact, want)
	}
	sec := pl.sections(h, want)
	// elsewhere says why a placement was found only outside the hunk's
	// section; later steps may still find the right one
	var ambiguity, elsewhere string
	// 2. the nearest unique exact match in the hunk's section
	if len(old) > 0 {
		ps, why := sec.prefer(pl.find(old, false), want)
		elsewhere = cmp.Or(elsewhere, why)
		if len(ps) > 0 {
			if p, ok := nearest(ps, want); ok {
				return pl.place(h.Lines, p, Offset, want)
			}
			ambiguity = fmt.Sprintf("old lines match %d places equally near line %d", len(ps), want+1)
		}
	}
	// 3. already applied: the new side is there and the old is not
	if len(new) > 0 && ambiguity == "" {
		if rep, ok := pl.already(sec, new, want, false); ok {
			return rep
		}
	}
	// 4. context-anchored: whitespace-tolerant, then with context trimmed
	// from the outside in; the changed lines always stay in the anchor
	if ambiguity == "" {
		rep, amb, why, ok := pl.anchored(sec, h, want)
		if ok {
			return rep
		}
		ambiguity, elsewhere = amb, cmp.Or(elsewhere, why)
	}
	// 5. bracketed: the agent rewrote the changed lines themselves
	if ambiguity == "" {
		rep, amb, why, ok := pl.bracketed(sec, h, want)
		if ok {
			return rep
		}
		ambiguity, elsewhere = amb, cmp.Or(elsewhere, why)
	}
	// 6. already applied, up to whitespace
	if ambiguity == "" && len(new) > 0 {
		if rep, ok := pl.already(sec, new, want, true); ok {
			return rep
		}
	}
	msg := "could not locate the hunk's context"
	switch {
	case strings.HasPrefix(ambiguity, refusal):
		msg = ambiguity
	case ambiguity != "":
		msg = "ambiguous: " + ambiguity
	case elsewhere != "":
		msg = elsewhere
	}
	return HunkReport{Method: Failed, Error: msg, Start: h.OldStart}
}

func (pl *placer) already(sec *sections, new []string, want int, norm bool) (HunkReport, bool) {
	ps, _ := sec.prefer(pl.find(new, norm), want)
	p, ok := nearest(ps, want)
	if !ok {
		return HunkReport{}, false
	}
	pl.where = append(pl.where, landing{edit: -1, at: p, n: len(new)})
	return HunkReport{Method: AlreadyApplied, Offset: p - want}, true
}

func (pl *placer) anchored(sec *sections, h *Hunk, want int) (rep HunkReport, ambiguity, elsewhere string, ok bool) {
	pre, post := contextRuns(h)
	hasMinus := slices.ContainsFunc(h.Lines, func(l Line) bool { return l.Kind == '-' })
	for t := 0; t <= pre+post; t++ {
		// hunk start → lines trimmed in front: every whitespace-tolerant
		// match, and those that match byte for byte
		starts, exact := map[int]int{}, map[int]int{}
		for i := max(0, t-post); i <= min(t, pre); i++ {
			core := h.Lines[i : len(h.Lines)-(t-i)]
			if !anchorable(core, hasMinus) {
				continue
			}
			old, _ := sides(core)
			for _, p := range pl.find(old, true) {
				starts[p-i] = i
			}
			for _, p := range pl.find(old, false) {
				exact[p-i] = i
			}
		}
		// a byte-exact match beats one that holds only up to whitespace:
		// decide among the exact ones first; only places in the hunk's
		// section count
		for _, set := range []map[int]int{exact, starts} {
			cands, why := sec.prefer(slices.Sorted(maps.Keys(set)), want)
			elsewhere = cmp.Or(elsewhere, why)
			if len(cands) == 0 {
				continue
			}
			if k, ok := decisive(cands, want); ok {
				i := set[cands[k]]
				core := h.Lines[i : len(h.Lines)-(t-i)]
				return pl.place(core, cands[k]+i, Anchored, want+i), "", "", true
			}
			return HunkReport{}, fmt.Sprintf("context matches %d places after trimming %d context lines", len(cands), t), "", false
		}
	}
	return HunkReport{}, "", elsewhere, false
}

// contextRuns counts the context lines before the hunk's first change and
// after its last.
func contextRuns(h *Hunk) (pre, post int) {
	for pre < len(h.Lines) && h.Lines[pre].Kind == ' ' {
		pre++
	}
	for post < len(h.Lines)-pre && h.Lines[len(h.Lines)-1-post].Kind == ' ' {
		post++
	}
	return pre, post
}

// anchorable requires an anchor to hold a non-blank line, and an insertion
// to keep at least one non-blank context line that fixes its position.
func anchorable(core []Line, hasMinus bool) bool {
	for _, l := range core {
		if l.Kind == '-' && strings.TrimSpace(l.Text) != "" {
			return true
		}
		if l.Kind == ' ' && strings.TrimSpace(l.Text) != "" && !hasMinus {
			return true
		}
	}
	return false
}

// place makes the edit that replaces the old side of ls at image line p
// with its new side. The edit covers only the lines from the first change
// to the last: context at either end stays the file's own, and hunks that
// share context do not overlap.
func (pl *placer) place(ls []Line, p int, method string, want int) HunkReport {
	lead, trail := 0, 0
	for lead < len(ls) && ls[lead].Kind == ' ' {
		lead++
	}
	for trail < len(ls)-lead && ls[len(ls)-1-trail].Kind == ' ' {
		trail++
	}
	e := edit{from: p + lead, to: p + lead}
	n := lead + trail
	for _, l := range ls[lead : len(ls)-trail] {
		switch l.Kind {
		case ' ':
			e.out = append(e.out, outLine{keep: e.to})
			e.to++
		case '-':
			e.to++
		case '+':
			e.out = append(e.out, outLine{keep: -1, text: l.Text, noEOL: l.NoNewline})
		}
	}
	return pl.commit(e, p, n+len(e.out), method, p-want)
}

func (pl *placer) commit(e edit, at, n int, method string, offset int) HunkReport {
	pl.edits = append(pl.edits, e)
	pl.where = append(pl.where, landing{edit: len(pl.edits) - 1, at: at, n: n})
	return HunkReport{Method: method, Offset: offset}
}

// bracketed places a hunk whose changed lines the agent rewrote: a run of
// the context before the change and a run of the context after it are
// found with a short gap between; the gap is the agent's version of the
// hunk's middle and is replaced by the hunk's new side between the two
// runs. Lines outside the runs are never touched. Runs are tried exact
// before whitespace-tolerant (indentation is syntax in some languages),
// longest first, and either next to the change or at the hunk's outer
// edge (where the agent rewrote the context next to the change).
func (pl *placer) bracketed(sec *sections, h *Hunk, want int) (rep HunkReport, ambiguity, elsewhere string, ok bool) {
	pre, post := contextRuns(h)
	midOld, _ := sides(h.Lines[pre : len(h.Lines)-post])
	maxGap := max(2*len(midOld)+10, 20)
	text := func(ls []Line) []string { o, _ := sides(ls); return o }
	postAt := len(h.Lines) - post
	for _, norm := range []bool{false, true} {
		for size := pre + post; size >= 2; size-- {
			var found []bracket
			seen := map[[2]int]bool{}
			for lp := min(pre, size-1); lp >= 1; lp-- {
				lq := size - lp
				if lq < 1 || lq > post {
					continue
				}
				for _, a := range runStarts(0, pre, lp, true) {
					for _, c := range runStarts(postAt, len(h.Lines), lq, false) {
						preBlock, postBlock := text(h.Lines[a:a+lp]), text(h.Lines[c:c+lq])
						if blank(preBlock) || blank(postBlock) {
							continue
						}
						for _, ps := range pl.im.find(preBlock, norm) {
							from := ps + lp
							for q := from; q <= min(from+maxGap, len(pl.im.lines)-lq); q++ {
								if !pl.im.matchAt(postBlock, q, norm) {
									continue
								}
								b := bracket{start: ps, end: q + lq, a: a, lp: lp, c: c, lq: lq}
								if !seen[[2]int{b.start, b.end}] && pl.free(b.start, b.end) {
									seen[[2]int{b.start, b.end}] = true
									found = append(found, b)
								}
								break
							}
						}
					}
				}
			}
			if len(found) == 0 {
				continue
			}
			// one bracket per post run: the tightest (a pre run further up
			// only adds unrelated lines to the gap); then one per place the
			// hunk would start: the first found, whose runs lie nearest the
			// change
			found = tightest(found)
			var starts []int
			var firsts []bracket
			for _, b := range found {
				if !slices.Contains(starts, b.start-b.a) {
					starts, firsts = append(starts, b.start-b.a), append(firsts, b)
				}
			}
			kept, why := sec.prefer(starts, want)
			elsewhere = cmp.Or(elsewhere, why)
			if len(kept) == 0 {
				continue
			}
			firsts = slices.DeleteFunc(firsts, func(b bracket) bool { return !slices.Contains(kept, b.start-b.a) })
			i, ok := decisive(kept, want)
			if !ok {
				return HunkReport{}, fmt.Sprintf("context around the change matches %d places", len(kept)), "", false
			}
			if rep, why := pl.replaceSpan(h, firsts[i], want); why == "" {
				return rep, "", "", true
			} else {
				return HunkReport{}, refusal + why, "", false
			}
		}
	}
	return HunkReport{}, "", elsewhere, false
}

// bracket is a bracketed placement: image lines [start, end) hold the pre
// run h.Lines[a:a+lp], the agent's gap, and the post run h.Lines[c:c+lq].
type bracket struct{ start, end, a, lp, c, lq int }

// runStarts lists where a run of n lines may start within lines [lo, hi):
// next to the change first, then at the outer edge.
func runStarts(lo, hi, n int, before bool) []int {
	inner, outer := hi-n, lo
	if !before {
		inner, outer = lo, hi-n
	}
	if inner == outer {
		return []int{inner}
	}
	return []int{inner, outer}
}

// tightest keeps, of brackets that end at the same line, the one whose pre
// run is nearest that end, in found order otherwise.
func tightest(found []bracket) []bracket {
	var out []bracket
	for _, b := range found {
		i := slices.IndexFunc(out, func(o bracket) bool { return o.end == b.end })
		switch {
		case i < 0:
			out = append(out, b)
		case b.start > out[i].start:
			out[i] = b
		}
	}
	return out
}

// decisive picks the candidate nearest to want when the choice is clear:
// it is the only one, or every other lies more than twice as far, by more
// than two lines. Otherwise the placement is ambiguous. The recorded
// position (shifted by where earlier hunks landed) is strong evidence; a
// near tie is not.
func decisive(starts []int, want int) (int, bool) {
	best, d1, d2 := closest(starts, want)
	return best, best >= 0 && (d2 < 0 || d2 > 2*d1+2)
}

func blank(ls []string) bool {
	for _, l := range ls {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// refusal marks a placement found but refused (not an ambiguity).
const refusal = "refused: "

// replaceSpan lands a bracketed hunk, changing only what its - and +
// lines say: between the two runs the file holds the agent's version of
// the hunk's middle. When that middle's old side is there, only it is
// replaced, every line around it kept as the agent left it; when the
// agent replaced exactly the changed lines, the hunk's + lines replace
// the agent's version of its - lines (over-agent, overSpan: context among
// them stays the agent's). Otherwise it cannot tell which lines are the
// hunk's, and refuses (why says so) rather than write the diff's context
// over the agent's lines.
func (pl *placer) replaceSpan(h *Hunk, b bracket, want int) (HunkReport, string) {
	g0, g1 := b.start+b.lp, b.end-b.lq
	inner := h.Lines[b.a+b.lp : b.c]
	pre, post := 0, 0 // the hunk's context lines between the runs and the change
	for pre < len(inner) && inner[pre].Kind == ' ' {
		pre++
	}
	for post < len(inner)-pre && inner[len(inner)-1-post].Kind == ' ' {
		post++
	}
	change := inner[pre : len(inner)-post]
	old, _ := sides(change)
	offset := b.start - b.a - want
	overAgent := func(from, to int) (HunkReport, string) {
		return pl.overSpan(change, from, to, b.start, b.end-b.start, offset)
	}
	if pre == 0 && post == 0 {
		// the gap is the agent's version of the changed lines
		return overAgent(g0, g1)
	}
	if len(old) > 0 {
		// the hunk's old lines are there: the agent changed only their
		// surroundings, which stay as they are
		for _, norm := range []bool{false, true} {
			var at []int
			for p := g0; p+len(old) <= g1; p++ {
				if pl.im.matchAt(old, p, norm) && pl.free(p, p+len(old)) {
					at = append(at, p)
				}
			}
			if len(at) == 1 {
				return pl.place(change, at[0], Anchored, want+(at[0]-b.start)), ""
			}
			if len(at) > 1 {
				return HunkReport{}, fmt.Sprintf("the hunk's old lines appear %d times between its anchors", len(at))
			}
		}
	}
	// the hunk's context next to the change is there as it was: between
	// it is the agent's version of the changed lines
	preOld, _ := sides(inner[:pre])
	postOld, _ := sides(inner[len(inner)-post:])
	for _, norm := range []bool{false, true} {
		from, to := g0+pre, g1-post
		if from <= to && pl.im.matchAt(preOld, g0, norm) && pl.im.matchAt(postOld, to, norm) {
			if len(old) == 0 {
				if from != to {
					break // an insertion between context the agent split apart
				}
				return pl.place(change, from, Anchored, want+(from-b.start)), ""
			}
			return overAgent(from, to)
		}
	}
	// the agent rewrote the context next to the change too, line for
	// line: its lines stand where the hunk's context stands, and only the
	// hunk's removed lines give way to its added ones
	innerOld, _ := sides(inner)
	if g1-g0 == len(innerOld) {
		e := edit{from: g0, to: g1}
		at := g0
		for _, l := range inner {
			switch l.Kind {
			case ' ':
				e.out = append(e.out, outLine{keep: at})
				at++
			case '-':
				at++
			case '+':
				e.out = append(e.out, outLine{keep: -1, text: l.Text, noEOL: l.NoNewline})
			}
		}
		return pl.commit(e, b.start, (b.end-b.start)+e.growth(), OverAgent, offset), ""
	}
	return HunkReport{}, "the agent changed the lines around the change: which of them are the hunk's cannot be told"
}

// result renders the file and numbers each landing in it: reports[i]
// belongs to where[i].
func (pl *placer) result(reports []*HunkReport) []byte {
	order := make([]int, len(pl.edits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ea, eb := pl.edits[a], pl.edits[b]
		if ea.from != eb.from {
			return ea.from - eb.from
		}
		return ea.to - eb.to
	})
	sorted := make([]edit, len(order))
	newFrom := make([]int, len(order)) // by edit index
	growth := 0
	for k, i := range order {
		sorted[k] = pl.edits[i]
		newFrom[i] = pl.edits[i].from + growth
		growth += pl.edits[i].growth()
	}
	for i, w := range pl.where {
		start := 0
		if w.edit >= 0 {
			start = newFrom[w.edit] + (w.at - pl.edits[w.edit].from)
		} else {
			start = w.at
			for _, e := range sorted {
				if e.to <= w.at {
					start += e.growth()
				}
			}
		}
		reports[i].Start, reports[i].End = start+1, start+w.n
	}
	return pl.im.render(sorted)
}

package patch

import (
	"fmt"
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

// nearest picks the match closest to want; ok is false on a tie.
func nearest(ps []int, want int) (int, bool) {
	best, bestD, tie := -1, 0, false
	for _, p := range ps {
		d := p - want
		if d < 0 {
			d = -d
		}
		switch {
		case best < 0 || d < bestD:
			best, bestD, tie = p, d, false
		case d == bestD:
			tie = true
		}
	}
	return best, best >= 0 && !tie
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
	var ambiguity string
	// 2. the nearest unique exact match
	if len(old) > 0 {
		if ps := pl.find(old, false); len(ps) > 0 {
			if p, ok := nearest(ps, want); ok {
				return pl.place(h.Lines, p, Offset, want)
			}
			ambiguity = fmt.Sprintf("old lines match %d places equally near line %d", len(ps), want+1)
		}
	}
	// 3. already applied: the new side is there and the old is not
	if len(new) > 0 && ambiguity == "" {
		if rep, ok := pl.already(new, want, false); ok {
			return rep
		}
	}
	// 4. context-anchored: whitespace-tolerant, then with context trimmed
	// from the outside in; the changed lines always stay in the anchor
	if ambiguity == "" {
		rep, amb, ok := pl.anchored(h, want)
		if ok {
			return rep
		}
		ambiguity = amb
	}
	// 5. bracketed: the agent rewrote the changed lines themselves
	if ambiguity == "" {
		rep, amb, ok := pl.bracketed(h, want)
		if ok {
			return rep
		}
		ambiguity = amb
	}
	// 6. already applied, up to whitespace
	if ambiguity == "" && len(new) > 0 {
		if rep, ok := pl.already(new, want, true); ok {
			return rep
		}
	}
	msg := "could not locate the hunk's context"
	if ambiguity != "" {
		msg = "ambiguous: " + ambiguity
	}
	return HunkReport{Method: Failed, Error: msg, Start: h.OldStart}
}

func (pl *placer) already(new []string, want int, norm bool) (HunkReport, bool) {
	p, ok := nearest(pl.find(new, norm), want)
	if !ok {
		return HunkReport{}, false
	}
	pl.where = append(pl.where, landing{edit: -1, at: p, n: len(new)})
	return HunkReport{Method: AlreadyApplied, Offset: p - want}, true
}

func (pl *placer) anchored(h *Hunk, want int) (HunkReport, string, bool) {
	pre, post := contextRuns(h)
	hasMinus := slices.ContainsFunc(h.Lines, func(l Line) bool { return l.Kind == '-' })
	for t := 0; t <= pre+post; t++ {
		starts := map[int]int{} // hunk start → lines trimmed in front
		for i := max(0, t-post); i <= min(t, pre); i++ {
			core := h.Lines[i : len(h.Lines)-(t-i)]
			if !anchorable(core, hasMinus) {
				continue
			}
			old, _ := sides(core)
			for _, p := range pl.find(old, true) {
				starts[p-i] = i
			}
		}
		switch len(starts) {
		case 0:
			continue
		case 1:
			for start, i := range starts {
				core := h.Lines[i : len(h.Lines)-(t-i)]
				return pl.place(core, start+i, Anchored, want+i), "", true
			}
		}
		return HunkReport{}, fmt.Sprintf("context matches %d places after trimming %d context lines", len(starts), t), false
	}
	return HunkReport{}, "", false
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
// with its new side, keeping the file's own text for context lines.
func (pl *placer) place(ls []Line, p int, method string, want int) HunkReport {
	e := edit{from: p, to: p}
	for _, l := range ls {
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
	return pl.commit(e, p, len(e.out), method, p-want)
}

func (pl *placer) commit(e edit, at, n int, method string, offset int) HunkReport {
	pl.edits = append(pl.edits, e)
	pl.where = append(pl.where, landing{edit: len(pl.edits) - 1, at: at, n: n})
	return HunkReport{Method: method, Offset: offset}
}

// bracketed places a hunk whose changed lines the agent rewrote: the
// context before and after the change is found (whitespace-tolerant, trimmed
// from the outside, at least one non-blank line each side) with a short gap
// between; the lines in the gap are the agent's version of the hunk's
// changed block, and are replaced by the hunk's new lines. Lines outside
// the anchors are never touched.
func (pl *placer) bracketed(h *Hunk, want int) (HunkReport, string, bool) {
	pre, post := contextRuns(h)
	midOld, _ := sides(h.Lines[pre : len(h.Lines)-post])
	maxGap := max(2*len(midOld)+10, 20)
	text := func(ls []Line) []string { o, _ := sides(ls); return o }
	for size := pre + post; size >= 2; size-- {
		type cand struct{ start, end, lp int }
		var found []cand
		for lp := min(pre, size-1); lp >= 1; lp-- {
			lq := size - lp
			if lq < 1 || lq > post {
				continue
			}
			preBlock := text(h.Lines[pre-lp : pre])
			postBlock := text(h.Lines[len(h.Lines)-post : len(h.Lines)-post+lq])
			if blank(preBlock) || blank(postBlock) {
				continue
			}
			for _, ps := range pl.im.find(preBlock, true) {
				from := ps + lp
				for q := from; q <= min(from+maxGap, len(pl.im.lines)-lq); q++ {
					if pl.im.matchAt(postBlock, q, true) {
						if pl.free(ps, q+lq) {
							found = append(found, cand{ps, q + lq, lp})
						}
						break
					}
				}
			}
		}
		if len(found) == 0 {
			continue
		}
		uniq := map[[2]int]cand{}
		for _, c := range found {
			uniq[[2]int{c.start, c.end}] = c
		}
		if len(uniq) > 1 {
			return HunkReport{}, fmt.Sprintf("context around the change matches %d places", len(uniq)), false
		}
		for _, c := range uniq {
			return pl.replaceSpan(h, c.start, c.end, c.lp, size-c.lp, pre, post, want), "", true
		}
	}
	return HunkReport{}, "", false
}

func blank(ls []string) bool {
	for _, l := range ls {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// replaceSpan makes the edit that writes the hunk's new middle between the
// matched anchors: image[start:start+lp] is the pre anchor, image[end-lq:end]
// the post anchor.
func (pl *placer) replaceSpan(h *Hunk, start, end, lp, lq, pre, post int, want int) HunkReport {
	e := edit{from: start, to: end}
	for k := start; k < start+lp; k++ {
		e.out = append(e.out, outLine{keep: k})
	}
	for _, l := range h.Lines[pre : len(h.Lines)-post] {
		if l.Kind != '-' {
			e.out = append(e.out, outLine{keep: -1, text: l.Text, noEOL: l.NoNewline})
		}
	}
	for k := end - lq; k < end; k++ {
		e.out = append(e.out, outLine{keep: k})
	}
	return pl.commit(e, start, len(e.out), Anchored, start+lp-pre-want)
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

package patch

import (
	"fmt"
	"strings"
)

// file is a text file as lines without terminators, each line's own
// terminator kept so line endings survive untouched.
type file struct {
	lines []string
	ends  []string
	eol   string // the file's dominant terminator, for inserted lines
}

func splitFile(s string) *file {
	f := &file{eol: "\n"}
	crlf := 0
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			f.lines = append(f.lines, s)
			f.ends = append(f.ends, "")
			break
		}
		line, end := s[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, end = line[:len(line)-1], "\r\n"
			crlf++
		}
		f.lines = append(f.lines, line)
		f.ends = append(f.ends, end)
		s = s[i+1:]
	}
	if crlf*2 > len(f.lines) {
		f.eol = "\r\n"
	}
	return f
}

func (f *file) join() string {
	var b strings.Builder
	for i, l := range f.lines {
		b.WriteString(l)
		b.WriteString(f.ends[i])
	}
	return b.String()
}

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

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

func (f *file) matchAt(block []string, p int, norm bool) bool {
	if p < 0 || p+len(block) > len(f.lines) {
		return false
	}
	for k, b := range block {
		l := f.lines[p+k]
		if l != b && !(norm && normalize(l) == normalize(b)) {
			return false
		}
	}
	return true
}

func (f *file) matches(block []string, norm bool) []int {
	var ps []int
	if len(block) == 0 {
		return nil
	}
	for p := 0; p+len(block) <= len(f.lines); p++ {
		if f.matchAt(block, p, norm) {
			ps = append(ps, p)
		}
	}
	return ps
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

// apply places one hunk; delta is the shift earlier hunks caused.
func (f *file) apply(h *Hunk, delta int) HunkReport {
	old, new := sides(h.Lines)
	want := h.OldStart - 1 + delta
	if h.OldLines == 0 {
		want = h.OldStart + delta
	}
	want = max(want, 0)
	// 1. exact at the recorded position
	if f.matchAt(old, want, false) {
		return f.place(h.Lines, want, Exact, want)
	}
	var ambiguity string
	// 2. the nearest unique exact match
	if len(old) > 0 {
		if ps := f.matches(old, false); len(ps) > 0 {
			if p, ok := nearest(ps, want); ok {
				return f.place(h.Lines, p, Offset, want)
			}
			ambiguity = fmt.Sprintf("old lines match %d places equally near line %d", len(ps), want+1)
		}
	}
	// 3. already applied: the new side is there and the old is not
	if len(new) > 0 && ambiguity == "" {
		if ps := f.matches(new, false); len(ps) > 0 {
			if p, ok := nearest(ps, want); ok {
				return HunkReport{Method: AlreadyApplied, Start: p + 1, End: p + len(new)}
			}
		}
	}
	// 4. context-anchored: whitespace-tolerant, then with context trimmed
	// from the outside in; the changed lines always stay in the anchor
	if ambiguity == "" {
		rep, amb, ok := f.anchored(h, want)
		if ok {
			return rep
		}
		ambiguity = amb
	}
	if ambiguity == "" {
		rep, amb, ok := f.bracketed(h, want)
		if ok {
			return rep
		}
		ambiguity = amb
	}
	if ambiguity == "" && len(new) > 0 {
		if ps := f.matches(new, true); len(ps) > 0 {
			if p, ok := nearest(ps, want); ok {
				return HunkReport{Method: AlreadyApplied, Start: p + 1, End: p + len(new)}
			}
		}
	}
	msg := "could not locate the hunk's context"
	if ambiguity != "" {
		msg = "ambiguous: " + ambiguity
	}
	return HunkReport{Method: Failed, Error: msg, Start: h.OldStart}
}

func (f *file) anchored(h *Hunk, want int) (HunkReport, string, bool) {
	pre, post := 0, 0
	for pre < len(h.Lines) && h.Lines[pre].Kind == ' ' {
		pre++
	}
	for post < len(h.Lines)-pre && h.Lines[len(h.Lines)-1-post].Kind == ' ' {
		post++
	}
	hasMinus := false
	for _, l := range h.Lines {
		if l.Kind == '-' {
			hasMinus = true
		}
	}
	for t := 0; t <= pre+post; t++ {
		type cand struct{ i, p int }
		var found []cand
		for i := max(0, t-post); i <= min(t, pre); i++ {
			j := t - i
			core := h.Lines[i : len(h.Lines)-j]
			old, _ := sides(core)
			if !anchorable(core, hasMinus) {
				continue
			}
			for _, p := range f.matches(old, true) {
				found = append(found, cand{i, p - 0})
			}
		}
		if len(found) == 0 {
			continue
		}
		// distinct placements of the hunk start
		starts := map[int]cand{}
		for _, c := range found {
			starts[c.p-c.i] = c
		}
		if len(starts) > 1 {
			return HunkReport{}, fmt.Sprintf("context matches %d places after trimming %d context lines", len(starts), t), false
		}
		for _, c := range starts {
			j := t - c.i
			core := h.Lines[c.i : len(h.Lines)-j]
			return f.place(core, c.p, Anchored, want), "", true
		}
	}
	return HunkReport{}, "", false
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

// place replaces the old side of ls at file index p with its new side,
// keeping the file's own text for context lines.
func (f *file) place(ls []Line, p int, method string, want int) HunkReport {
	var lines, ends []string
	k := p
	newCount := 0
	lastKind := byte(0)
	var lastNoNL bool
	for _, l := range ls {
		switch l.Kind {
		case ' ':
			lines = append(lines, f.lines[k])
			ends = append(ends, f.ends[k])
			k++
			newCount++
		case '-':
			k++
		case '+':
			lines = append(lines, l.Text)
			ends = append(ends, f.eol)
			newCount++
		}
		if l.Kind != '-' {
			lastKind, lastNoNL = l.Kind, l.NoNewline
		}
	}
	atEOF := k == len(f.lines)
	// a line that gains a successor needs a terminator
	if p > 0 && f.ends[p-1] == "" && len(lines) > 0 {
		f.ends[p-1] = f.eol
	}
	if atEOF && len(lines) > 0 && lastKind == '+' && lastNoNL {
		ends[len(ends)-1] = ""
	}
	for i := range len(lines) - 1 {
		if ends[i] == "" {
			ends[i] = f.eol
		}
	}
	if !atEOF && len(lines) > 0 && ends[len(ends)-1] == "" {
		ends[len(ends)-1] = f.eol
	}
	f.lines = append(f.lines[:p:p], append(lines, f.lines[k:]...)...)
	f.ends = append(f.ends[:p:p], append(ends, f.ends[k:]...)...)
	return HunkReport{Method: method, Start: p + 1, End: p + newCount, Offset: p - want}
}

// bracketed places a hunk whose changed lines the agent rewrote: the
// context before and after the change is found (whitespace-tolerant, trimmed
// from the outside, at least one non-blank line each side) with a short gap
// between; the lines in the gap are the agent's version of the hunk's
// changed block, and are replaced by the hunk's new lines. Lines outside
// the anchors are never touched.
func (f *file) bracketed(h *Hunk, want int) (HunkReport, string, bool) {
	pre, post := 0, 0
	for pre < len(h.Lines) && h.Lines[pre].Kind == ' ' {
		pre++
	}
	for post < len(h.Lines)-pre && h.Lines[len(h.Lines)-1-post].Kind == ' ' {
		post++
	}
	mid := h.Lines[pre : len(h.Lines)-post]
	midOld, _ := sides(mid)
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
			for _, ps := range f.matches(preBlock, true) {
				from := ps + lp
				for q := from; q <= min(from+maxGap, len(f.lines)-lq); q++ {
					if f.matchAt(postBlock, q, true) {
						found = append(found, cand{ps, q + lq, lp})
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
			return f.replaceSpan(h, c.start, c.end, c.lp, size-c.lp, pre, post, want), "", true
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

// replaceSpan writes the hunk's new middle between the matched anchors:
// file[start:start+lp] is the pre anchor, file[end-lq:end] the post anchor.
func (f *file) replaceSpan(h *Hunk, start, end, lp, lq, pre, post int, want int) HunkReport {
	var lines, ends []string
	for k := start; k < start+lp; k++ {
		lines, ends = append(lines, f.lines[k]), append(ends, f.ends[k])
	}
	for _, l := range h.Lines[pre : len(h.Lines)-post] {
		if l.Kind != '-' {
			lines, ends = append(lines, l.Text), append(ends, f.eol)
		}
	}
	for k := end - lq; k < end; k++ {
		lines, ends = append(lines, f.lines[k]), append(ends, f.ends[k])
	}
	f.lines = append(f.lines[:start:start], append(lines, f.lines[end:]...)...)
	f.ends = append(f.ends[:start:start], append(ends, f.ends[end:]...)...)
	first := start + lp + 1
	return HunkReport{Method: Anchored, Start: start + 1, End: start + len(lines), Offset: first - 1 - want}
}

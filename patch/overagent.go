package patch

// overSpan lands a hunk's change over image lines [from, to), the agent's
// version of it. The change may hold context between its groups of - and
// + lines, and the agent may have rewritten that context too: a landing
// writes only the - → + change, never the hunk's context over the
// agent's line (issue 50: a context line the agent had fixed was written
// back, undoing its work). So:
//
//   - with no context inside the change, the span is the agent's version
//     of exactly the changed lines, and the + lines replace it
//     (over-agent);
//   - with as many lines as the change's old side, line for line: the
//     agent's lines stay where the hunk's context stands and only the -
//     lines give way to the + lines (anchored when every - line is there
//     as it was, over-agent when the agent had changed one);
//   - otherwise each context line must be in the span as it was, in
//     order; the agent's lines between two of them are its version of
//     the group there, and give way to the group's + lines. A context line
//     missing, or the agent's lines where a group removes nothing, is
//     refused: which lines are the hunk's cannot be told.
//
// at and n0 say where the landing's report starts and its length before
// the edit's growth; why is set when it refuses.
func (pl *placer) overSpan(change []Line, from, to, at, n0, offset int) (rep HunkReport, why string) {
	old, _ := sides(change)
	e := edit{from: from, to: to}
	add := func(l Line) { e.out = append(e.out, outLine{keep: -1, text: l.Text, noEOL: l.NoNewline}) }
	hasContext := false
	for _, l := range change {
		hasContext = hasContext || l.Kind == ' '
	}
	method := OverAgent
	switch {
	case !hasContext:
		for _, l := range change {
			if l.Kind == '+' {
				add(l)
			}
		}
	case to-from == len(old):
		p, same := from, true
		for _, l := range change {
			switch l.Kind {
			case ' ':
				e.out = append(e.out, outLine{keep: p})
				p++
			case '-':
				same = same && pl.im.matchAt([]string{l.Text}, p, true)
				p++
			case '+':
				add(l)
			}
		}
		if same {
			method = Anchored
		}
	default:
		p, removes := from, false
		for _, l := range change {
			switch l.Kind {
			case ' ':
				q := p
				for q < to && !pl.im.matchAt([]string{l.Text}, q, false) {
					q++
				}
				if q == to {
					return HunkReport{}, "the agent changed the hunk's context between its changes, and its lines there are not the hunk's line for line"
				}
				if q > p && !removes {
					return HunkReport{}, "the agent added lines where the hunk only inserts"
				}
				e.out = append(e.out, outLine{keep: q})
				p, removes = q+1, false
			case '-':
				removes = true
			case '+':
				add(l)
			}
		}
		if p < to && !removes {
			return HunkReport{}, "the agent added lines where the hunk only inserts"
		}
	}
	return pl.commit(e, at, n0+e.growth(), method, offset), ""
}

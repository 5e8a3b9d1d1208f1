package policy

import (
	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/task"
)

// shift is one hunk of an edit in old-file lines: at line start, old lines
// were replaced by new lines.
type shift struct{ start, old, new int }

func hunkShifts(diff string) map[string][]shift {
	fds, err := patch.Parse(diff)
	if err != nil {
		return nil
	}
	out := map[string][]shift{}
	for _, fd := range fds {
		var ss []shift
		for _, h := range fd.Hunks {
			// walk the hunk to find the changed block, not its context
			line := h.OldStart
			if h.OldLines == 0 {
				line++
			}
			for i := 0; i < len(h.Lines); {
				if h.Lines[i].Kind == ' ' {
					line++
					i++
					continue
				}
				s := shift{start: line}
				for i < len(h.Lines) && h.Lines[i].Kind != ' ' {
					if h.Lines[i].Kind == '-' {
						s.old++
					} else {
						s.new++
					}
					i++
				}
				line += s.old
				ss = append(ss, s)
			}
		}
		out[cleanPath(fd.OldPath)] = ss
	}
	return out
}

// shiftRegion moves a region through an edit's changes (given in old-file
// lines, in order). Changes above the region move it; changes inside
// stretch or shrink its end; a region whose lines are all removed keeps
// one line where it was.
func shiftRegion(r task.Region, ss []shift) task.Region {
	start, end := r.StartLine, r.EndLine
	for _, s := range ss {
		d := s.new - s.old
		switch {
		case s.start+s.old <= r.StartLine && s.old > 0 || s.old == 0 && s.start <= r.StartLine:
			start += d
			end += d
		case s.start <= r.EndLine:
			// overlaps the region: lines removed inside shrink it, lines
			// added inside grow it
			end += d
		}
	}
	if start < 1 {
		start = 1
	}
	if end < start {
		end = start
	}
	r.StartLine, r.EndLine = start, end
	return r
}

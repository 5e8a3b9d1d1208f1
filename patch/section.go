package patch

import (
	"fmt"
	"slices"
	"strings"
)

// A hunk header names the section its lines sit in (the text after the
// second @@: "class Table:", "def _cstack(left, right):"), as git computes
// it from the old file. When the agent has moved or rewritten a hunk's
// target, an identical snippet in another section (a sibling class's copy
// of the line) can match as well as, or instead of, the right place; the
// section tells them apart.

// headingRule is one way git picks a section's heading line: the nearest
// line above the hunk that the rule accepts, shown without its leading
// whitespace.
type headingRule func(line string) bool

// headingRules are git's default (a line starting with a letter, '_' or
// '$') and its python driver (a class or def line at any depth), which
// released records use for .py files. A candidate is in the section when
// either rule names it so.
var headingRules = [...]headingRule{
	func(l string) bool { return l != "" && isHeadChar(l[0]) },
	func(l string) bool {
		t := strings.TrimLeft(l, " \t")
		t = strings.TrimPrefix(t, "async ")
		return strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "class ") ||
			strings.HasPrefix(t, "def\t") || strings.HasPrefix(t, "class\t")
	},
}

func isHeadChar(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// sections answers, for one hunk, which section a candidate start lies in.
// It looks at the file only when there are candidates to choose among (a
// hunk that lands where its header says never scans for its heading).
type sections struct {
	im      *image
	heading string // the header's section; "" when none
	want    int
	looked  bool
	// target is, per rule, the heading line that holds the stated
	// position, or -1 when the stated position is not under the heading
	target  [len(headingRules)]int
	present bool // the heading is somewhere in the file
}

func (pl *placer) sections(h *Hunk, want int) *sections {
	return &sections{im: pl.im, heading: h.Section, want: want}
}

// look finds the heading in the file and the one over the stated line.
func (s *sections) look() {
	if s.looked {
		return
	}
	s.looked = true
	for r := range s.target {
		s.target[r] = -1
	}
	if s.heading == "" {
		return
	}
	for k := range s.im.lines {
		if s.names(k) {
			s.present = true
			break
		}
	}
	for r := range headingRules {
		if k, ok := s.headingAbove(r, s.want); ok && s.names(k) {
			s.target[r] = k
		}
	}
}

// names reports whether line k is the heading (git truncates long ones,
// so a prefix suffices).
func (s *sections) names(k int) bool {
	return strings.HasPrefix(strings.TrimSpace(s.im.text(k)), s.heading)
}

// headingAbove finds the line rule r names as the section of a hunk
// starting at line p.
func (s *sections) headingAbove(r, p int) (int, bool) {
	for k := min(p, len(s.im.lines)) - 1; k >= 0; k-- {
		if headingRules[r](s.im.text(k)) {
			return k, true
		}
	}
	return -1, false
}

// within reports whether a hunk starting at line p lies in the hunk's
// section: under the very heading line that holds the stated position,
// or, when the stated position is no longer under it, under a line of
// that name.
func (s *sections) within(p int) bool {
	for r := range headingRules {
		k, ok := s.headingAbove(r, p)
		if ok && s.names(k) && (s.target[r] < 0 || k == s.target[r]) {
			return true
		}
	}
	return false
}

// prefer narrows candidate starts to those in the hunk's section. With
// no heading, or one the file no longer holds (the agent renamed it), it
// cannot tell and keeps them all. When every candidate lies outside the
// section, none is kept and why says so: landing there would put the
// user's edit in another function.
func (s *sections) prefer(starts []int, want int) (kept []int, why string) {
	if len(starts) == 0 || s.heading == "" {
		return starts, ""
	}
	if s.look(); !s.present {
		return starts, ""
	}
	kept = slices.DeleteFunc(slices.Clone(starts), func(p int) bool { return !s.within(p) })
	if len(kept) > 0 {
		return kept, ""
	}
	_, d, _ := closest(starts, want)
	return nil, fmt.Sprintf("%sthe hunk's lines match only outside its section %q (the nearest %d lines from line %d)", refusal, s.heading, d, want+1)
}

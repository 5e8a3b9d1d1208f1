// Package linediff is a line-level diff and its git-style rendering: what
// the watcher says an edit changed, and what the final diff shows.
package linediff

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Range is a 1-based inclusive line range of the new content.
type Range struct{ Start, End int }

// Op is one line of a line diff: ' ', '-' or '+'.
type Op struct {
	Kind byte
	Text string // with its terminator
}

// Lines is a line-level diff of old and new.
func Lines(old, new string) []Op {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(old, new)
	diffs := dmp.DiffMain(a, b, false)
	diffs = dmp.DiffCharsToLines(diffs, lines)
	var ops []Op
	for _, d := range diffs {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				ops = append(ops, Op{kind, l})
			}
		}
	}
	return ops
}

// Changed are the lines of new that differ from old; a pure
// deletion marks the line just above the removed lines (line 1 when they
// were at the top).
func Changed(ops []Op) []Range {
	var rs []Range
	n := 0 // lines of new so far
	add := func(a, b int) {
		if k := len(rs) - 1; k >= 0 && a <= rs[k].End+1 {
			rs[k].End = max(rs[k].End, b)
			return
		}
		rs = append(rs, Range{a, b})
	}
	for i, op := range ops {
		switch op.Kind {
		case ' ':
			n++
		case '+':
			n++
			add(n, n)
		case '-':
			if i+1 < len(ops) && ops[i+1].Kind != ' ' {
				continue // part of a replacement; the '+' side marks it
			}
			add(max(n, 1), max(n, 1))
		}
	}
	return rs
}

// Unified renders ops as a git-style unified diff of path with three
// lines of context.
func Unified(path string, ops []Op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	Hunks(&b, ops)
	return b.String()
}

// Hunks writes ops' hunks, three lines of context each, without a
// file header. Each header names the function the hunk is in as git's
// default does (DefaultFunc), so a diff of swetouch's reads as git's.
func Hunks(b *strings.Builder, ops []Op) { HunksWith(b, ops, DefaultFunc) }

// HunksWith is Hunks with the function names fn finds (git's diff
// driver for the file, as its attributes name it).
func HunksWith(b *strings.Builder, ops []Op, fn FuncLine) {
	const ctx = 3
	var old []string // the old side's lines, for the function names
	for _, op := range ops {
		if op.Kind != '+' {
			old = append(old, op.Text)
		}
	}
	oldN, newN := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		oldN[i+1], newN[i+1] = oldN[i], newN[i]
		if op.Kind != '+' {
			oldN[i+1]++
		}
		if op.Kind != '-' {
			newN[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].Kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].Kind != ' ' {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].Kind == ' ' {
				j++
			}
			if j < len(ops) && j-end <= 2*ctx {
				end = j
				continue
			}
			end = min(end+ctx, len(ops))
			break
		}
		oc, nc := oldN[end]-oldN[start], newN[end]-newN[start]
		os, ns := oldN[start]+1, newN[start]+1
		if oc == 0 {
			os--
		}
		if nc == 0 {
			ns--
		}
		fmt.Fprintf(b, "@@ -%s +%s @@", span(os, oc), span(ns, nc))
		if f := funcName(old, oldN[start]-1, fn); f != "" {
			b.WriteString(" " + f)
		}
		b.WriteByte('\n')
		for _, op := range ops[start:end] {
			b.WriteByte(op.Kind)
			b.WriteString(op.Text)
			if !strings.HasSuffix(op.Text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
}

// span is a hunk side's range as git writes it: the count left out when
// it is one.
func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// FuncLine says whether a line (without its newline) names a function
// for a hunk header, and the name as git shows it.
type FuncLine func(line string) (string, bool)

// DefaultFunc is git's default: a line that starts with a letter, '_' or
// '$'.
func DefaultFunc(l string) (string, bool) {
	if l == "" {
		return "", false
	}
	c := l[0]
	return l, c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

// builtin are git's built-in diff drivers' function lines that tasks'
// attributes name (diff=python), each with its first group as the name.
var builtin = map[string]*regexp.Regexp{
	"python": regexp.MustCompile(`^[ \t]*((class|(async[ \t]+)?def)[ \t].*)$`),
	"golang": regexp.MustCompile(`^[ \t]*(func[ \t]*.*(\{[ \t]*)?)$|^[ \t]*(type[ \t].*(struct|interface)[ \t]*(\{[ \t]*)?)$`),
	"rust":   regexp.MustCompile(`^[\t ]*((pub(\([^\)]+\))?[\t ]+)?((async|const|unsafe|extern([\t ]+"[^"]+"))[\t ]+)?(struct|enum|union|mod|trait|fn|impl|macro_rules!)[< \t]+[^;]*)$`),
}

// Builtin is git's built-in driver of that name; false for a driver git
// does not build in (whose definition would be the workspace's config).
func Builtin(name string) (FuncLine, bool) {
	re, ok := builtin[name]
	if !ok {
		return nil, false
	}
	return func(l string) (string, bool) {
		m := re.FindStringSubmatchIndex(l)
		if m == nil {
			return "", false
		}
		for g := 2; g < len(m); g += 2 {
			if m[g] >= 0 {
				return l[m[g]:m[g+1]], true // the first group that took part
			}
		}
		return l[m[0]:m[1]], true
	}, true
}

// funcName is the text git puts after a hunk header: the nearest line at
// or above old[from] fn takes, cut to 80 bytes, trailing space trimmed
// ("" for none).
func funcName(old []string, from int, fn FuncLine) string {
	for i := min(from, len(old)-1); i >= 0; i-- {
		if name, ok := fn(strings.TrimRight(old[i], "\r\n")); ok {
			if len(name) > 80 {
				name = name[:80]
			}
			return strings.TrimRight(name, " \t\r\v\f")
		}
	}
	return ""
}

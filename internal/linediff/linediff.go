// Package linediff is a line-level diff and its git-style rendering: what
// the watcher says an edit changed, and what the final diff shows.
package linediff

import (
	"fmt"
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
// file header.
func Hunks(b *strings.Builder, ops []Op) {
	const ctx = 3
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
		fmt.Fprintf(b, "@@ -%s +%s @@\n", span(os, oc), span(ns, nc))
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

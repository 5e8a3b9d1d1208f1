package watch

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Range is a 1-based inclusive line range of the new content.
type Range struct{ Start, End int }

// lineOp is one line of a line diff: ' ', '-' or '+'.
type lineOp struct {
	kind byte
	text string // with its terminator
}

// diffLines is a line-level diff of old and new.
func diffLines(old, new string) []lineOp {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(old, new)
	diffs := dmp.DiffMain(a, b, false)
	diffs = dmp.DiffCharsToLines(diffs, lines)
	var ops []lineOp
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
				ops = append(ops, lineOp{kind, l})
			}
		}
	}
	return ops
}

// changedRanges are the lines of new that differ from old; a pure
// deletion marks the line just above the removed lines (line 1 when they
// were at the top).
func changedRanges(ops []lineOp) []Range {
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
		switch op.kind {
		case ' ':
			n++
		case '+':
			n++
			add(n, n)
		case '-':
			if i+1 < len(ops) && ops[i+1].kind != ' ' {
				continue // part of a replacement; the '+' side marks it
			}
			add(max(n, 1), max(n, 1))
		}
	}
	return rs
}

// unified renders ops as a git-style unified diff of path with three
// lines of context.
func unified(path string, ops []lineOp) string {
	const ctx = 3
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	oldN, newN := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		oldN[i+1], newN[i+1] = oldN[i], newN[i]
		if op.kind != '+' {
			oldN[i+1]++
		}
		if op.kind != '-' {
			newN[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
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
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", os, oc, ns, nc)
		for _, op := range ops[start:end] {
			b.WriteByte(op.kind)
			b.WriteString(op.text)
			if !strings.HasSuffix(op.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return b.String()
}

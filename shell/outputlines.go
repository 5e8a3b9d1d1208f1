// Reading a command's output line by line: which file and line each
// line names (grep's and nl's prefixes, tracebacks, diff hunks).

package shell

import (
	"path"
	"strings"
)

// numberedPrefix reads nl/cat -n numbering: optional spaces, digits, a tab.
func numberedPrefix(l string) (int, bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i || j >= len(l) || l[j] != '\t' {
		// an empty numbered line may lose its tab when output is trimmed
		if j > i && j == len(l) && i > 0 {
			return atoi(l[i:j])
		}
		return 0, false
	}
	return atoi(l[i:j])
}

// grepPrefix reads grep -n numbering: digits then ':' (match) or '-'
// (context).
func grepPrefix(l string) (int, bool) {
	j := 0
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == 0 || j >= len(l) || (l[j] != ':' && l[j] != '-') {
		return 0, false
	}
	return atoi(l[:j])
}

// numberedLines collects the numbered lines of an output as ranges. Runs of
// numbers are joined across unnumbered lines that fill the gap exactly (nl
// leaves blank lines unnumbered).
func numberedLines(lines []string, prefix func(string) (int, bool)) []rng {
	var sel []rng
	last, gap := 0, 0
	for _, l := range lines {
		n, ok := prefix(l)
		if !ok || n == 0 {
			if last > 0 {
				gap++
			}
			continue
		}
		if k := len(sel); k > 0 && (n == last+1 || n > last && n == last+1+gap) {
			sel[k-1].b = n
		} else {
			sel = append(sel, rng{n, n})
		}
		last, gap = n, 0
	}
	return mergeRanges(sel)
}

// looksLikeFile accepts a path whose last element has an extension of
// letters and digits (a.py, package.json, Makefile.am), never a bare number.
func looksLikeFile(p string) bool {
	base := path.Base(p)
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		return false
	}
	ext := base[dot+1:]
	if isDigits(ext) {
		return false
	}
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// pathLine parses "path:N:" or "path-N-" at the start of a line.
func pathLine(l string) (string, int, byte, bool) {
	end := strings.IndexAny(l, " \t")
	if end < 0 {
		end = len(l)
	}
	head := l[:end]
	for i := 0; i < len(head); i++ {
		sep := head[i]
		if sep != ':' && sep != '-' || i == 0 {
			continue
		}
		j := i + 1
		for j < len(head) && head[j] >= '0' && head[j] <= '9' {
			j++
		}
		if j == i+1 || j >= len(l) || l[j] != sep {
			continue
		}
		n, ok := atoi(head[i+1 : j])
		if !ok {
			continue
		}
		p := head[:i]
		if sep == ':' && strings.IndexByte(p, ':') >= 0 {
			return "", 0, 0, false
		}
		return p, n, sep, true
	}
	return "", 0, 0, false
}

// traceback parses `  File "path", line N`.
func traceback(l string) (string, int, bool) {
	t := strings.TrimLeft(l, " ")
	rest, ok := strings.CutPrefix(t, `File "`)
	if !ok {
		return "", 0, false
	}
	p, rest, ok := strings.Cut(rest, `", line `)
	if !ok {
		return "", 0, false
	}
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, ok := atoi(rest[:j])
	return p, n, ok
}

// hunkNew reads the new-side start and count of "@@ -a,b +c,d @@".
func hunkNew(l string) (int, int, bool) {
	_, rest, ok := strings.Cut(l, " +")
	if !ok {
		return 0, 0, false
	}
	spec, _, _ := strings.Cut(rest, " ")
	a, b, hasCount := strings.Cut(spec, ",")
	start, ok := atoi(a)
	if !ok {
		return 0, 0, false
	}
	count := 1
	if hasCount {
		if count, ok = atoi(b); !ok {
			return 0, 0, false
		}
	}
	return start, count, true
}

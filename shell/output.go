package shell

import (
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// Observation is what the agent saw of a command's output. When the middle
// was elided, Text is the head and Tail the tail.
type Observation struct {
	Text   string
	Tail   string
	Elided bool
}

func (o Observation) lines() []string {
	ls := splitLines(o.Text)
	if o.Elided && o.Tail != "" {
		ls = append(ls, splitLines(o.Tail)...)
	}
	return ls
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ClassifyOutput classifies a command whose output is known: numbered
// listings, `path:line:` hits, `grep -n` lines and short verbatim blocks
// then give exact lines.
func (s *Session) ClassifyOutput(command string, obs Observation) *Result {
	return s.classify(command, &obs)
}

// refine narrows the shown streams with what the output shows, and adds
// reads for the lines output names (grep hits, tracebacks, diff hunks).
func (w *walker) refine(obs *Observation) {
	lines := obs.lines()
	if len(lines) == 0 {
		if !obs.Elided {
			w.printedNothing()
		}
		return
	}
	var shown []*stream
	numbered := 0
	for _, st := range w.streams {
		if st.shown {
			shown = append(shown, st)
			if st.numbered && len(st.files) == 1 {
				numbered++
			}
		}
	}
	w.dropMissing(lines)
	hitFiles := w.hits(lines)
	if w.grepNames {
		w.namedLines(lines, hitFiles)
	}
	for _, st := range shown {
		if st.grep && len(st.files) > 1 {
			// `grep -n x a b` prints "a:N:" hits: those lines are the read
			kept := st.files[:0]
			for _, f := range st.files {
				if !hitFiles[f] {
					kept = append(kept, f)
				}
			}
			st.files = kept
		}
		if len(st.files) != 1 {
			continue
		}
		switch {
		case st.numbered:
			nums := numberedLines(lines, numberedPrefix)
			if len(nums) == 0 {
				continue
			}
			if numbered > 1 {
				// several listings share the output: every file may
				// hold any printed number; keep the command's ranges too
				st.ranges = append(w.closeRanges(st.files[0], st.ranges), nums...)
				if st.ranges == nil || len(st.ranges) == len(nums) && w.closeRanges(st.files[0], nil) == nil {
					st.ranges = nums
				}
				st.ranges = mergeRanges(st.ranges)
			} else {
				st.ranges = nums
			}
			st.tail, st.subset = 0, false
		case st.grepN:
			if hitFiles[st.files[0]] {
				continue
			}
			nums := numberedLines(lines, grepPrefix)
			if len(nums) > 0 && st.grepBase != nil {
				// grep numbered the lines of the stream, not of the file
				nums = mapRanges(st.grepBase, nums)
			}
			if len(nums) > 0 {
				st.ranges, st.tail, st.subset = nums, 0, false
			}
		case st.exact && !obs.Elided && !st.subset:
			w.fitCount(st, len(lines))
		case !obs.Elided:
			w.locate(st, lines)
		}
	}
}

// printedNothing drops the selections of lines (sed -n 500,520p, tail -n
// 5 of an empty file) shown to the agent when the output is empty: they
// selected no line, and reporting them would invent a read. A whole file
// printed empty was still read: the agent learned it is empty.
func (w *walker) printedNothing() {
	w.streams = slices.DeleteFunc(w.streams, func(st *stream) bool {
		return st.shown && st.exact && !st.subset && len(st.files) == 1 && (len(st.ranges) > 0 || st.tail > 0)
	})
}

// fitCount clips a verbatim selection to the number of lines printed: a
// range past the end of the file prints fewer lines than it names.
func (w *walker) fitCount(st *stream, k int) {
	switch {
	case st.tail > 0:
		w.locate(st, nil)
	case len(st.ranges) == 1:
		r := st.ranges[0]
		if r.b == 0 || r.b-r.a+1 > k {
			if k == 0 {
				st.ranges = []rng{}
				return
			}
			st.ranges = []rng{{r.a, r.a + k - 1}}
		}
	}
}

// locate finds printed lines in the file's known content: contiguous
// blocks (tail, sed /re/,/re/p, grep -A/-B/-C groups) or single matching
// lines (grep, awk).
func (w *walker) locate(st *stream, lines []string) {
	content, ok := w.s.content(st.files[0])
	if !ok || len(lines) == 0 {
		return
	}
	file := splitLines(content)
	if st.tail > 0 && len(st.ranges) == 0 {
		return
	}
	if start := findBlock(file, lines); start > 0 {
		st.ranges, st.tail, st.subset = []rng{{start, start + len(lines) - 1}}, 0, false
		return
	}
	if blocks, all := findRuns(file, lines); all && len(blocks) > 0 {
		st.ranges, st.tail, st.subset = mergeRanges(blocks), 0, false
		return
	}
	if st.partial {
		return // lines it happens to share with the file prove nothing
	}
	want := map[string]bool{}
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			want[l] = true
		}
	}
	var sel []rng
	for i, l := range file {
		if want[l] && inRanges(st.ranges, i+1) {
			sel = append(sel, rng{i + 1, i + 1})
		}
	}
	if len(sel) > 0 && len(sel) <= 4*len(lines) {
		st.ranges, st.tail, st.subset = mergeRanges(sel), 0, false
	}
}

// findRuns splits output into the longest runs of lines that each occur
// contiguously at exactly one place in file (at least two lines, or one
// line found once). all reports whether every non-blank output line that
// the file holds lies in a run; lines it does not hold (a script's own
// messages, grep's "--" separators) are not the file's.
func findRuns(file, lines []string) (blocks []rng, all bool) {
	at := map[string][]int{}
	for j, l := range file {
		at[l] = append(at[l], j)
	}
	all = true
	for i := 0; i < len(lines); {
		best, bestN, tie := -1, 0, false
		for _, j := range at[lines[i]] {
			n := 0
			for i+n < len(lines) && j+n < len(file) && lines[i+n] == file[j+n] {
				n++
			}
			switch {
			case n > bestN:
				best, bestN, tie = j, n, false
			case n == bestN:
				tie = true
			}
		}
		if best < 0 || tie || bestN < 2 && len(at[lines[i]]) > 1 {
			// a line the file does not hold is the program's own text
			if l := strings.TrimSpace(lines[i]); l != "" && l != "--" && best >= 0 {
				all = false
			}
			i++
			continue
		}
		blocks = append(blocks, rng{best + 1, best + bestN})
		i += bestN
	}
	return blocks, all
}

// findBlock returns the 1-based line where lines occur contiguously and
// uniquely in file, or 0.
func findBlock(file, lines []string) int {
	if len(lines) < 2 || len(lines) > len(file) {
		return 0
	}
	found := 0
	for i := 0; i+len(lines) <= len(file); i++ {
		if file[i] != lines[0] {
			continue
		}
		match := true
		for j := 1; j < len(lines); j++ {
			if file[i+j] != lines[j] {
				match = false
				break
			}
		}
		if match {
			if found > 0 {
				return 0
			}
			found = i + 1
		}
	}
	return found
}

func inRanges(rs []rng, n int) bool {
	if rs == nil {
		return true
	}
	for _, r := range rs {
		if n >= r.a && (r.b == 0 || n <= r.b) {
			return true
		}
	}
	return false
}

// hits adds a one-line read for every `path:N:` (grep -rn, pytest,
// compilers), `path-N-` (grep context of a path seen with a hit) and
// `File "path", line N` (Python tracebacks) in the output, and for the
// new-side lines of diff hunks when the command shows a diff. It returns
// the files that got hits.
func (w *walker) hits(lines []string) map[string]bool {
	files := map[string]bool{}
	var ctx [][2]string
	var diffFile string
	for _, l := range lines {
		if w.showsDiff {
			if p, ok := strings.CutPrefix(l, "+++ "); ok {
				diffFile = ""
				if p != "/dev/null" {
					p = strings.TrimPrefix(p, "b/")
					if rp, ok := w.resolve(p); ok {
						diffFile = rp
					}
				}
				continue
			}
			if strings.HasPrefix(l, "@@ ") && diffFile != "" {
				if a, b, ok := hunkNew(l); ok && b > 0 {
					w.add(event.Read, event.LineScope(diffFile, a, a+b-1))
				}
				continue
			}
		}
		if p, n, ok := traceback(l); ok {
			w.hitLine(p, n, files)
			continue
		}
		p, n, sep, ok := pathLine(l)
		if !ok {
			continue
		}
		if sep == ':' {
			w.hitLine(p, n, files)
		} else {
			ctx = append(ctx, [2]string{p, l})
		}
	}
	for _, c := range ctx {
		rp, ok := w.outputPath(c[0])
		if !ok || !files[rp] {
			continue
		}
		if _, n, _, _ := pathLine(c[1]); n > 0 {
			w.add(event.Read, event.LineScope(rp, n, n))
		}
	}
	return files
}

func (w *walker) hitLine(p string, n int, files map[string]bool) {
	if n <= 0 || !looksLikeFile(p) {
		return
	}
	rp, ok := w.outputPath(p)
	if !ok {
		return
	}
	files[rp] = true
	w.add(event.Read, event.LineScope(rp, n, n))
}

// outputPath resolves a path a command printed. A test runner's progress
// marks glued to it (unittest's dots on stderr, a warning's path right
// after them: "...astropy/io/x.py:12: Warning") are not part of it. A
// test run prints paths relative to its root directory, the workspace's
// root, not the shell's directory: "../opt/…/site-packages/…" from pytest
// is outside the workspace, never "opt/…" under it.
func (w *walker) outputPath(p string) (string, bool) {
	p = w.unglue(p)
	if strings.HasPrefix(p, "../") && w.ranTests() {
		rp, ok := w.s.join("", p)
		return rp, ok && rp != "."
	}
	return w.resolve(p)
}

// unglue strips unittest's progress marks (".", "F", "E", "s", "x") from
// the front of a printed path: a run of dots always (no workspace path
// starts with "..x"), marks with letters among them only when what is
// left is absolute or a file the session knows.
func (w *walker) unglue(p string) string {
	if !strings.HasPrefix(p, ".") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return p
	}
	if marks := strings.TrimLeft(p, ".FEsx"); marks != "" && marks != p {
		if rp, ok := w.resolve(marks); ok && (strings.HasPrefix(marks, "/") || w.known(rp)) {
			return marks
		}
	}
	if dots := strings.TrimLeft(p, "."); strings.HasPrefix(p, "..") && dots != "" {
		return dots
	}
	return p
}

func (w *walker) ranTests() bool {
	return slices.ContainsFunc(w.res.Findings, func(f Finding) bool { return f.Kind == event.Test })
}

// finish turns the streams into read findings and sorts the findings.
func (w *walker) finish() {
	for _, st := range w.streams {
		for _, sc := range w.scopes(st) {
			w.add(event.Read, sc)
		}
	}
	w.streams = nil
}

// namedLines adds the reads a recursive grep without numbers shows: each
// "path:text" line is a line of path, found by its text when the file's
// content is known (every line that holds it), else the whole file.
func (w *walker) namedLines(lines []string, hitFiles map[string]bool) {
	texts := map[string][]string{}
	var order []string
	for _, l := range lines {
		p, text, ok := strings.Cut(l, ":")
		if !ok || !looksLikeFile(p) {
			continue
		}
		rp, ok := w.resolve(p)
		if !ok || hitFiles[rp] {
			continue
		}
		if _, seen := texts[rp]; !seen {
			order = append(order, rp)
		}
		texts[rp] = append(texts[rp], text)
	}
	for _, rp := range order {
		content, ok := w.s.content(rp)
		if !ok {
			w.add(event.Read, event.FileScope(rp))
			continue
		}
		want := map[string]bool{}
		for _, t := range texts[rp] {
			want[t] = true
		}
		var sel []rng
		for i, l := range splitLines(content) {
			if want[l] {
				sel = append(sel, rng{i + 1, i + 1})
			}
		}
		if len(sel) == 0 {
			w.add(event.Read, event.FileScope(rp)) // the content changed: the file, not invented lines
			continue
		}
		for _, r := range mergeRanges(sel) {
			w.add(event.Read, event.LineScope(rp, r.a, r.b))
		}
	}
}

// dropMissing takes off the shown streams the files the output says
// could not be opened ("cat: x.py: No such file or directory",
// "can't open file 'x.py': [Errno 2]"): nothing of them was read.
func (w *walker) dropMissing(lines []string) {
	missing := map[string]bool{}
	for _, l := range lines {
		var p string
		switch {
		case strings.HasSuffix(l, ": No such file or directory"):
			rest := strings.TrimSuffix(l, ": No such file or directory")
			if i := strings.LastIndex(rest, ": "); i >= 0 {
				p = rest[i+2:]
			} else {
				p = rest
			}
		case strings.Contains(l, "can't open file '") && strings.Contains(l, "No such file or directory"):
			_, after, _ := strings.Cut(l, "can't open file '")
			p, _, _ = strings.Cut(after, "'")
		default:
			continue
		}
		p = strings.Trim(p, "'\"`")
		if rp, ok := w.resolve(p); ok {
			missing[rp] = true
		}
	}
	if len(missing) == 0 {
		return
	}
	for _, st := range w.streams {
		kept := st.files[:0]
		for _, f := range st.files {
			if !missing[f] {
				kept = append(kept, f)
			}
		}
		st.files = kept
	}
}

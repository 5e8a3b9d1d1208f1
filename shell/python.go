package shell

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/swetouch/swetouch/event"
)

var pyOpts = opts{short: "cmWX"}

// python handles `python -c`, `python -m`, `python script.py` and
// `python - <<EOF`. What it prints may show parts of the files the script
// reads: those streams are its output.
func (w *walker) python(c *call) out {
	p := pyOpts.parse(c.args)
	if m, ok := p.get("m"); ok {
		w.pythonModule(m, p.operands)
		return out{}
	}
	if src, ok := p.get("c"); ok {
		return out{printed: w.pyScript(src)}
	}
	if len(p.operands) > 0 && p.operands[0] != "-" {
		return out{printed: w.runScript(p.operands[0], p.operands[1:], "python")}
	}
	if c.stdin != nil {
		return out{printed: w.pyScript(*c.stdin)}
	}
	return out{}
}

func (w *walker) pythonModule(mod string, args []string) {
	switch mod {
	case "pytest", "py.test", "unittest", "nose", "nose2", "tox", "nox", "trial", "twisted.trial", "green", "xdist", "django":
		if mod == "django" && (len(args) == 0 || args[0] != "test") {
			return
		}
		w.testScopes(args)
	case "py_compile", "compileall", "pyflakes", "flake8", "pylint", "mypy", "black", "isort", "pycodestyle", "tokenize", "ast", "dis":
		for _, f := range w.readOperands(opts{}.parse(args).operands) {
			w.source([]string{f}, nil, false).exact = false
		}
		if mod == "black" || mod == "isort" {
			for _, a := range args {
				if !strings.HasPrefix(a, "-") {
					w.addPath(event.Edit, a)
				}
			}
		}
	}
}

// runScript runs a script file: a test runner by name, otherwise the
// script's own content (when known) says what it reads and writes. It
// returns the streams a Python script reads, which its output may show.
func (w *walker) runScript(p string, args []string, lang string) []*stream {
	base := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case base == "runtests.py" || base == "run_tests.py" || base == "runtest.py" || base == "pytest" || base == "test" && strings.Contains(p, "bin/"):
		w.testScopes(args)
		return nil
	case (base == "manage.py" || base == "setup.py") && len(args) > 0 && args[0] == "test":
		w.testScopes(args[1:])
		return nil
	}
	rp, ok := w.resolve(p)
	if !ok {
		return nil
	}
	if body, ok := w.s.content(rp); ok && w.depth < maxDepth {
		w.depth++
		defer func() { w.depth-- }()
		if lang == "python" {
			return w.pyScript(body)
		}
		w.nested(body)
	}
	return nil
}

var (
	pyOpenAt  = lazyRegexp(`^open\(\s*(?:(?:f?(['"])([^'"\n]*)['"])|([A-Za-z_][\w.]*))\s*(?:,\s*(?:mode\s*=\s*)?['"]([rwabxt+U]*)['"])?`)
	pyPath    = lazyRegexp(`\b(?:pathlib\.)?Path\(\s*(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*))\s*\)((?:\s*/\s*['"][^'"\n]*['"])*)\s*\.(read_text|read_bytes|write_text|write_bytes|open|unlink|touch|rename|replace)\(\s*(?:['"]([rwabxt+]*)['"])?`)
	pyPathVar = lazyRegexp(`(?m)^\s*([A-Za-z_]\w*)\s*=\s*(?:pathlib\.)?Path\(\s*(['"])([^'"\n]*)['"]\s*\)`)
	pyVarCall = lazyRegexp(`\b([A-Za-z_]\w*)\.(read_text|read_bytes|write_text|write_bytes|open|unlink|touch)\(\s*(?:['"]([rwabxt+]*)['"])?`)
	pyStrVar  = lazyRegexp(`^\s*([A-Za-z_]\w*)\s*=\s*(['"])([^'"\n]+)['"]\s*$`)
	pyOSEdit  = lazyRegexp(`^(?:os\.(?:remove|unlink|rename|replace)|shutil\.(?:copy|copy2|copyfile|move))\(\s*(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*))(?:\s*,\s*(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*)))?`)
	pyFileIn  = lazyRegexp(`\bfileinput\.(?:input|FileInput)\(\s*(?:\[\s*)?(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*))[^)]*inplace\s*=\s*(?:True|1)`)
	pySaveArg = lazyRegexp(`^\(\s*(['"])([^'"\n{}]+\.[A-Za-z0-9]{1,8})['"]\s*[,)]`)
	pySystem  = lazyRegexp(`\bos\.system\(\s*(?:'([^'\n]*)'|"([^"\n]*)")\s*\)`)
	pyTest    = lazyRegexp(`\b(?:pytest\.main|unittest\.main|doctest\.testmod|sympy\.test|sympy\.doctest)\(`)
)

// pyScript finds what a Python script reads and writes: open() with its
// mode, pathlib read/write calls, os/shutil moves and removals, fileinput
// in place, os.system shell strings, and slices of a file's lines printed
// (lines[a:b]) for exact read ranges. What the text names is found once
// per text (pyFactsOf, kept by the session: agents run the same script
// again and again); what the names resolve to is the walker's, each time.
func (w *walker) pyScript(src string) []*stream {
	f := w.s.pyFacts(src)
	if f.test {
		w.add(event.Test, event.Scope{})
	}
	reads := map[string]bool{}
	var readOrder []string
	for _, op := range f.ops {
		switch op.kind {
		case pyRead:
			if rp, ok := w.resolve(op.arg); ok && !reads[rp] {
				reads[rp] = true
				readOrder = append(readOrder, rp)
			}
		case pyEdit:
			if rp, ok := w.addPath(event.Edit, op.arg); ok {
				delete(w.s.written, rp)
			}
		case pyShell:
			w.nested(op.arg)
		}
	}
	// reads: exact ranges when the script prints slices of one file's lines
	var sel []rng
	if len(readOrder) == 1 && f.lines {
		sel = f.slices(src)
	}
	var streams []*stream
	for _, p := range readOrder {
		var ranges []rng
		if len(readOrder) == 1 && sel != nil {
			ranges = sel
		}
		st := w.source([]string{p}, ranges, false)
		st.exact, st.partial = false, true
		streams = append(streams, st)
	}
	return streams
}

// pyFacts is what a Python script's text says, before any name is
// resolved: whether it runs tests, and its reads, edits and shell
// strings in the order they are met.
type pyFacts struct {
	test  bool
	ops   []pyOp
	lines bool // it splits something into lines: slices may be shown
	sel   *[]rng
}

type pyOpKind uint8

const (
	pyRead pyOpKind = iota
	pyEdit
	pyShell
)

type pyOp struct {
	kind pyOpKind
	arg  string // the path as written, or the shell string
}

// slices is pySlices of the script, found on first need.
func (f *pyFacts) slices(src string) []rng {
	if f.sel == nil {
		sel := pySlices(src)
		f.sel = &sel
	}
	return *f.sel
}

// pyFactsCap bounds the scripts a session keeps the facts of; past it the
// store starts again (the facts are the text's alone, so only speed
// depends on what is kept).
const pyFactsCap = 256

// pyFacts returns the facts of a script's text, found once.
func (s *Session) pyFacts(src string) *pyFacts {
	if f, ok := s.pyKnown[src]; ok {
		return f
	}
	if len(s.pyKnown) >= pyFactsCap {
		clear(s.pyKnown)
	}
	f := pyFactsOf(src)
	s.pyKnown[src] = f
	return f
}

// pyFactsOf reads a script's text for what it names.
func pyFactsOf(src string) *pyFacts {
	calls := pyCallsOf(src)
	f := &pyFacts{test: calls.test && pyTest().MatchString(src), lines: calls.lines}
	var vars map[string]string // string variables, found on first use
	name := func(lit, v string) string {
		if lit != "" || v == "" {
			return lit
		}
		if vars == nil {
			vars = map[string]string{}
			for line := range strings.Lines(src) {
				if strings.IndexByte(line, '=') < 0 {
					continue
				}
				if m := pyStrVar().FindStringSubmatch(line); m != nil {
					vars[m[1]] = m[3]
				}
			}
		}
		return vars[v]
	}
	op := func(kind pyOpKind, arg string) {
		f.ops = append(f.ops, pyOp{kind, arg})
	}
	edit := func(p string) {
		if p != "" {
			op(pyEdit, p)
		}
	}
	for _, at := range calls.saves {
		if m := pySaveArg().FindStringSubmatch(src[at:]); m != nil {
			edit(m[2])
		}
	}
	if !calls.open && !calls.path && !calls.osEdit && !calls.fileinput && !calls.system {
		return f
	}
	for _, m := range wordMatches(src, "open(", pyOpenAt()) {
		p := name(m[2], m[3])
		if p == "" || strings.ContainsAny(p, "{}") {
			continue
		}
		if strings.ContainsAny(m[4], "wax+") {
			edit(p)
		} else {
			op(pyRead, p)
		}
	}
	pathVars := map[string]string{}
	if calls.path {
		for _, m := range pyPathVar().FindAllStringSubmatch(src, -1) {
			pathVars[m[1]] = m[3]
		}
	}
	pathOp := func(p, call, mode string) {
		switch {
		case call == "read_text", call == "read_bytes", call == "open" && !strings.ContainsAny(mode, "wax+"):
			op(pyRead, p)
		default:
			edit(p)
		}
	}
	for _, m := range findAll(calls.path, pyPath(), src) {
		p := name(m[2], m[3])
		if m[3] != "" && pathVars[m[3]] != "" {
			p = pathVars[m[3]]
		}
		if p == "" || m[4] != "" {
			continue
		}
		pathOp(p, m[5], m[6])
	}
	for _, m := range findAll(len(pathVars) > 0, pyVarCall(), src) {
		if p, ok := pathVars[m[1]]; ok {
			pathOp(p, m[2], m[3])
		}
	}
	for _, m := range findAllAt(calls.osEdit, src, pyOSEdit(), "os.", "shutil.") {
		edit(name(m[2], m[3]))
		edit(name(m[5], m[6]))
	}
	for _, m := range findAll(calls.fileinput, pyFileIn(), src) {
		edit(name(m[2], m[3]))
	}
	for _, m := range findAll(calls.system, pySystem(), src) {
		op(pyShell, m[1]+m[2])
	}
	return f
}

// wordMatches applies the anchored pattern re at every whole-word
// occurrence of lit in src: the literal search is what makes scanning a
// long script cheap.
func wordMatches(src, lit string, re *regexp.Regexp) [][]string {
	var out [][]string
	for i := 0; ; {
		j := strings.Index(src[i:], lit)
		if j < 0 {
			return out
		}
		at := i + j
		i = at + len(lit)
		if at > 0 && isIdentByte(src[at-1]) {
			continue
		}
		if m := re.FindStringSubmatch(src[at:]); m != nil {
			out = append(out, m)
		}
	}
}

// pyCalls says which calls a script makes, so that each pattern runs only
// where it can match: Go's regexp cannot skip ahead on a leading \b, and
// most scripts make none of these calls.
type pyCalls struct {
	test, open, path, osEdit, fileinput, system, lines bool
	// saves are the offsets of the "(" of library writer calls
	// (t.write('out.ecsv'), df.to_csv(...), plt.savefig(...)), whose
	// first argument, when a literal file name, is a file written
	saves []int
}

// pySavers are method names that write their first argument as a file in
// the libraries agents use in scripts (astropy, numpy, pandas, matplotlib).
var pySavers = map[string]bool{
	"write": true, "writeto": true, "save": true, "savez": true, "savetxt": true, "savefig": true,
	"to_csv": true, "to_json": true, "to_excel": true, "to_parquet": true, "to_pickle": true, "to_hdf": true,
}

// pyCallsOf finds them in one pass over the script's calls: the dotted
// name before each "(".
func pyCallsOf(src string) pyCalls {
	var c pyCalls
	for i := 0; ; i++ {
		j := strings.IndexByte(src[i:], '(')
		if j < 0 {
			return c
		}
		i += j
		k := i
		for k > 0 && (isIdentByte(src[k-1]) || src[k-1] == '.') {
			k--
		}
		name := src[k:i]
		qual, last := "", name
		if d := strings.LastIndexByte(name, '.'); d >= 0 {
			qual, last = name[:d], name[d+1:]
		}
		switch {
		case last == "open":
			c.open = true
		case last == "Path":
			c.path = true
		case last == "readlines" || last == "splitlines" || last == "split":
			c.lines = true
		case qual == "os" && last == "system":
			c.system = true
		case qual == "os" && (last == "remove" || last == "unlink" || last == "rename" || last == "replace"),
			qual == "shutil" && (last == "copy" || last == "copy2" || last == "copyfile" || last == "move"):
			c.osEdit = true
		case qual == "fileinput":
			c.fileinput = true
		case qual != "" && pySavers[last]:
			c.saves = append(c.saves, i)
		case last == "main" && (qual == "pytest" || qual == "unittest"), last == "testmod" && qual == "doctest",
			qual == "sympy" && (last == "test" || last == "doctest"):
			c.test = true
		}
	}
}

// findAll runs re over src only when the caller's literal prefilter
// says it can match.
func findAll(maybe bool, re *regexp.Regexp, src string) [][]string {
	if !maybe {
		return nil
	}
	return re.FindAllStringSubmatch(src, -1)
}

// findAllAt is re.FindAllStringSubmatch(src, -1) for a pattern that
// begins, after a \b, with one of the literals lits, written anchored
// (^) without the \b: it is tried only where a literal starts a word, and
// from where the last match ended, so it finds what the unanchored
// pattern would, without running the pattern over all of src.
func findAllAt(maybe bool, src string, re *regexp.Regexp, lits ...string) [][]string {
	if !maybe {
		return nil
	}
	var out [][]string
	next := make([]int, len(lits)) // each literal's next offset from i, or -1
	for k := range next {
		next[k] = -2
	}
	for i := 0; i < len(src); {
		at := -1
		for k, l := range lits {
			if next[k] == -2 || next[k] >= 0 && next[k] < i {
				next[k] = -1
				if j := strings.Index(src[i:], l); j >= 0 {
					next[k] = i + j
				}
			}
			if next[k] >= 0 && (at < 0 || next[k] < at) {
				at = next[k]
			}
		}
		if at < 0 {
			return out
		}
		i = at + 1
		if at > 0 && isIdentByte(src[at-1]) {
			continue
		}
		if loc := re.FindStringSubmatchIndex(src[at:]); loc != nil {
			m := make([]string, len(loc)/2)
			for k := range m {
				if loc[2*k] >= 0 {
					m[k] = src[at+loc[2*k] : at+loc[2*k+1]]
				}
			}
			out = append(out, m)
			i = at + max(loc[1], 1)
		}
	}
	return out
}

var (
	pyLinesAt = lazyRegexp(`\b([A-Za-z_]\w*)\s*=\s*[^\n]*\.(?:readlines\(\)|read\(\)\s*\.\s*splitlines\(\)|read\(\)\s*\.\s*split\(\s*['"]\\n['"]\s*\)|read_text\(\)\s*\.\s*splitlines\(\))`)
	pySliceAt = lazyRegexp(`^\[\s*(\d*)\s*:\s*(\d*)\s*\]`)
	pyIndexAt = lazyRegexp(`^\[\s*[A-Za-z_]\w*\s*\]`)
	pyRange   = lazyRegexp(`^range\(\s*(\d+)\s*,\s*(\d+)\s*\)`)
)

// pySlices returns the 1-based line ranges a script shows from a list of a
// file's lines: lines[a:b] → a+1..b, for i in range(a, b): lines[i] →
// a+1..b. nil when the script shows the lines some other way. Patterns are
// matched only where a literal says they can start, so a long script costs
// one pass per list variable.
func pySlices(src string) []rng {
	var lineVars []string
	for line := range strings.Lines(src) {
		if !strings.Contains(line, "lines()") && !strings.Contains(line, "split(") {
			continue
		}
		if m := pyLinesAt().FindStringSubmatch(line); m != nil && !slices.Contains(lineVars, m[1]) {
			lineVars = append(lineVars, m[1])
		}
	}
	if len(lineVars) == 0 {
		return nil
	}
	var sel []rng
	indexed := false
	for _, v := range lineVars {
		for at := range subscripts(src, v) {
			rest := src[at:]
			if m := pySliceAt().FindStringSubmatch(rest); m != nil {
				a, okA := atoi(m[1])
				if m[1] == "" {
					a, okA = 0, true
				}
				b, okB := atoi(m[2])
				if !okA || !okB || b <= a {
					return nil
				}
				sel = append(sel, rng{a + 1, b})
			} else if pyIndexAt().MatchString(rest) {
				indexed = true
			}
		}
	}
	if indexed && strings.Contains(src, "range(") {
		for _, m := range findAllAt(true, src, pyRange(), "range(") {
			a, _ := atoi(m[1])
			b, _ := atoi(m[2])
			if b > a {
				sel = append(sel, rng{a + 1, b})
			}
		}
	}
	if len(sel) == 0 {
		return nil
	}
	return mergeRanges(sel)
}

// subscripts yields the offsets of every "[" that directly follows the
// identifier name as a whole word in src.
func subscripts(src, name string) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; ; {
			j := strings.Index(src[i:], name+"[")
			if j < 0 {
				return
			}
			at := i + j
			i = at + len(name)
			if at > 0 && isIdentByte(src[at-1]) {
				continue
			}
			if !yield(i) {
				return
			}
		}
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// lazyRegexp compiles a pattern on first use: the shim starts this binary
// for every command, and compiling every pattern at start-up would cost
// it most of a millisecond.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

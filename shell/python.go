package shell

import (
	"regexp"
	"strings"

	"github.com/swetouch/swetouch/event"
)

var pyOpts = opts{short: "cmWX"}

// python handles `python -c`, `python -m`, `python script.py` and
// `python - <<EOF`.
func (w *walker) python(c *call) {
	p := pyOpts.parse(c.args)
	if m, ok := p.get("m"); ok {
		w.pythonModule(m, p.operands)
		return
	}
	if src, ok := p.get("c"); ok {
		w.pyScript(src)
		return
	}
	if len(p.operands) > 0 && p.operands[0] != "-" {
		w.runScript(p.operands[0], p.operands[1:], "python")
		return
	}
	if c.stdin != nil {
		w.pyScript(*c.stdin)
	}
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
// script's own content (when known) says what it reads and writes.
func (w *walker) runScript(p string, args []string, lang string) {
	base := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case base == "runtests.py" || base == "run_tests.py" || base == "runtest.py" || base == "pytest" || base == "test" && strings.Contains(p, "bin/"):
		w.testScopes(args)
		return
	case (base == "manage.py" || base == "setup.py") && len(args) > 0 && args[0] == "test":
		w.testScopes(args[1:])
		return
	}
	rp, ok := w.resolve(p)
	if !ok {
		return
	}
	if body, ok := w.s.content(rp); ok && w.depth < maxDepth {
		w.depth++
		if lang == "python" {
			w.pyScript(body)
		} else {
			w.nested(body)
		}
		w.depth--
	}
}

var (
	pyOpen    = regexp.MustCompile(`\b(?:io\.|codecs\.)?open\(\s*(?:(?:f?(['"])([^'"\n]*)['"])|([A-Za-z_][\w.]*))\s*(?:,\s*(?:mode\s*=\s*)?['"]([rwabxt+U]*)['"])?`)
	pyPath    = regexp.MustCompile(`\b(?:pathlib\.)?Path\(\s*(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*))\s*\)((?:\s*/\s*['"][^'"\n]*['"])*)\s*\.(read_text|read_bytes|write_text|write_bytes|open|unlink|touch|rename|replace)\(\s*(?:['"]([rwabxt+]*)['"])?`)
	pyPathVar = regexp.MustCompile(`(?m)^\s*([A-Za-z_]\w*)\s*=\s*(?:pathlib\.)?Path\(\s*(['"])([^'"\n]*)['"]\s*\)`)
	pyVarCall = regexp.MustCompile(`\b([A-Za-z_]\w*)\.(read_text|read_bytes|write_text|write_bytes|open|unlink|touch)\(\s*(?:['"]([rwabxt+]*)['"])?`)
	pyStrVar  = regexp.MustCompile(`(?m)^\s*([A-Za-z_]\w*)\s*=\s*(['"])([^'"\n]+)['"]\s*$`)
	pyOSEdit  = regexp.MustCompile(`\b(?:os\.(?:remove|unlink|rename|replace)|shutil\.(?:copy|copy2|copyfile|move))\(\s*(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*))(?:\s*,\s*(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*)))?`)
	pyFileIn  = regexp.MustCompile(`\bfileinput\.(?:input|FileInput)\(\s*(?:\[\s*)?(?:(['"])([^'"\n]*)['"]|([A-Za-z_]\w*))[^)]*inplace\s*=\s*(?:True|1)`)
	pySystem  = regexp.MustCompile(`\bos\.system\(\s*(?:'([^'\n]*)'|"([^"\n]*)")\s*\)`)
	pyLines   = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*=\s*[^\n]*\.(?:readlines\(\)|read\(\)\s*\.\s*splitlines\(\)|read\(\)\s*\.\s*split\(\s*['"]\\n['"]\s*\)|read_text\(\)\s*\.\s*splitlines\(\))`)
	pyTest    = regexp.MustCompile(`\b(?:pytest\.main|unittest\.main|doctest\.testmod|sympy\.test|sympy\.doctest)\(|\bimport pytest\b[\s\S]*\bpytest\.main\(`)
)

// pyScript finds what a Python script reads and writes: open() with its
// mode, pathlib read/write calls, os/shutil moves and removals, fileinput
// in place, os.system shell strings, and slices of a file's lines printed
// (lines[a:b]) for exact read ranges.
func (w *walker) pyScript(src string) {
	if pyTest.MatchString(src) {
		w.add(event.Test, event.Scope{})
	}
	vars := map[string]string{}
	for _, m := range pyStrVar.FindAllStringSubmatch(src, -1) {
		vars[m[1]] = m[3]
	}
	name := func(lit, v string) string {
		if lit != "" || v == "" {
			return lit
		}
		return vars[v]
	}
	reads := map[string]bool{}
	var readOrder []string
	read := func(p string) {
		if rp, ok := w.resolve(p); ok && !reads[rp] {
			reads[rp] = true
			readOrder = append(readOrder, rp)
		}
	}
	edit := func(p string) {
		if p == "" {
			return
		}
		if rp, ok := w.addPath(event.Edit, p); ok {
			delete(w.s.written, rp)
		}
	}
	for _, m := range pyOpen.FindAllStringSubmatch(src, -1) {
		p := name(m[2], m[3])
		if p == "" || strings.ContainsAny(p, "{}") {
			continue
		}
		if strings.ContainsAny(m[4], "wax+") {
			edit(p)
		} else {
			read(p)
		}
	}
	pathVars := map[string]string{}
	for _, m := range pyPathVar.FindAllStringSubmatch(src, -1) {
		pathVars[m[1]] = m[3]
	}
	pathOp := func(p, op, mode string) {
		switch op {
		case "read_text", "read_bytes":
			read(p)
		case "open":
			if strings.ContainsAny(mode, "wax+") {
				edit(p)
			} else {
				read(p)
			}
		default:
			edit(p)
		}
	}
	for _, m := range pyPath.FindAllStringSubmatch(src, -1) {
		p := name(m[2], m[3])
		if m[3] != "" && pathVars[m[3]] != "" {
			p = pathVars[m[3]]
		}
		if p == "" || m[4] != "" {
			continue
		}
		pathOp(p, m[5], m[6])
	}
	for _, m := range pyVarCall.FindAllStringSubmatch(src, -1) {
		if p, ok := pathVars[m[1]]; ok {
			pathOp(p, m[2], m[3])
		}
	}
	for _, m := range pyOSEdit.FindAllStringSubmatch(src, -1) {
		edit(name(m[2], m[3]))
		edit(name(m[5], m[6]))
	}
	for _, m := range pyFileIn.FindAllStringSubmatch(src, -1) {
		edit(name(m[2], m[3]))
	}
	for _, m := range pySystem.FindAllStringSubmatch(src, -1) {
		w.nested(m[1] + m[2])
	}
	// reads: exact ranges when the script prints slices of one file's lines
	sel := pySlices(src)
	for _, f := range readOrder {
		var ranges []rng
		if len(readOrder) == 1 && sel != nil {
			ranges = sel
		}
		st := w.source([]string{f}, ranges, false)
		st.exact = false
	}
}

var (
	pySlice = regexp.MustCompile(`\b([A-Za-z_]\w*)\[\s*(\d*)\s*:\s*(\d*)\s*\]`)
	pyRange = regexp.MustCompile(`\brange\(\s*(\d+)\s*,\s*(\d+)\s*\)`)
	pyIndex = regexp.MustCompile(`\b([A-Za-z_]\w*)\[\s*[A-Za-z_]\w*\s*\]`)
)

// pySlices returns the 1-based line ranges a script shows from a list of a
// file's lines: lines[a:b] → a+1..b, for i in range(a, b): lines[i] →
// a+1..b. nil when the script shows the lines some other way.
func pySlices(src string) []rng {
	lineVars := map[string]bool{}
	for _, m := range pyLines.FindAllStringSubmatch(src, -1) {
		lineVars[m[1]] = true
	}
	if len(lineVars) == 0 {
		return nil
	}
	var sel []rng
	for _, m := range pySlice.FindAllStringSubmatch(src, -1) {
		if !lineVars[m[1]] {
			continue
		}
		a, okA := atoi(m[2])
		if m[2] == "" {
			a, okA = 0, true
		}
		b, okB := atoi(m[3])
		if !okA || !okB || b <= a {
			return nil
		}
		sel = append(sel, rng{a + 1, b})
	}
	indexed := false
	for _, m := range pyIndex.FindAllStringSubmatch(src, -1) {
		indexed = indexed || lineVars[m[1]]
	}
	if indexed {
		for _, m := range pyRange.FindAllStringSubmatch(src, -1) {
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

package shell

import (
	"regexp"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// sedAddr is one sed address.
type sedAddr struct {
	kind byte // 0 none, 'n' line number, '$' last line, '+' +N, '~' ~N, 'r' regex or step
	n    int
}

type sedCmd struct {
	a1, a2 sedAddr
	neg    bool
	cmd    byte
	// re is an s command's pattern as written (its delimiter escapes
	// kept), delim its delimiter
	re    string
	delim byte
}

// parseSed reads a sed script far enough to know each command's addresses.
// Unknown constructs make ok false; the caller then assumes the worst.
func parseSed(script string) (cmds []sedCmd, ok bool) {
	type frame struct{ a1, a2 sedAddr }
	var stack []frame
	i, n := 0, len(script)
	addr := func() (sedAddr, bool) {
		if i >= n {
			return sedAddr{}, true
		}
		switch ch := script[i]; {
		case ch >= '0' && ch <= '9':
			j := i
			for j < n && script[j] >= '0' && script[j] <= '9' {
				j++
			}
			v, _ := atoi(script[i:j])
			i = j
			if i < n && script[i] == '~' { // first~step
				i++
				for i < n && script[i] >= '0' && script[i] <= '9' {
					i++
				}
				return sedAddr{kind: 'r'}, true
			}
			return sedAddr{kind: 'n', n: v}, true
		case ch == '$':
			i++
			return sedAddr{kind: '$'}, true
		case ch == '/' || ch == '\\':
			delim := byte('/')
			if ch == '\\' {
				if i+1 >= n {
					return sedAddr{}, false
				}
				delim = script[i+1]
				i++
			}
			i++
			for i < n && script[i] != delim {
				if script[i] == '\\' {
					i++
				}
				i++
			}
			if i >= n {
				return sedAddr{}, false
			}
			i++
			for i < n && (script[i] == 'I' || script[i] == 'M') {
				i++
			}
			return sedAddr{kind: 'r'}, true
		}
		return sedAddr{}, true
	}
	skipTo := func(stop string) {
		for i < n && !strings.ContainsRune(stop, rune(script[i])) {
			i++
		}
	}
	for i < n {
		for i < n && strings.ContainsRune(" \t\n;", rune(script[i])) {
			i++
		}
		if i >= n {
			break
		}
		if script[i] == '#' {
			skipTo("\n")
			continue
		}
		var c sedCmd
		var good bool
		if c.a1, good = addr(); !good {
			return cmds, false
		}
		if c.a1.kind != 0 && i < n && script[i] == ',' {
			i++
			switch {
			case i < n && (script[i] == '+' || script[i] == '~'):
				kind := script[i]
				i++
				j := i
				for j < n && script[j] >= '0' && script[j] <= '9' {
					j++
				}
				v, okN := atoi(script[i:j])
				if !okN {
					return cmds, false
				}
				i = j
				c.a2 = sedAddr{kind: kind, n: v}
			default:
				if c.a2, good = addr(); !good || c.a2.kind == 0 {
					return cmds, false
				}
			}
		}
		for i < n && (script[i] == ' ' || script[i] == '\t') {
			i++
		}
		if i < n && script[i] == '!' {
			c.neg = true
			i++
			for i < n && (script[i] == ' ' || script[i] == '\t') {
				i++
			}
		}
		if i >= n {
			return cmds, false
		}
		c.cmd = script[i]
		i++
		if c.a1.kind == 0 && len(stack) > 0 {
			top := stack[len(stack)-1]
			c.a1, c.a2 = top.a1, top.a2
		}
		switch c.cmd {
		case '{':
			stack = append(stack, frame{c.a1, c.a2})
			continue
		case '}':
			if len(stack) == 0 {
				return cmds, false
			}
			stack = stack[:len(stack)-1]
			continue
		case 's', 'y':
			if i >= n {
				return cmds, false
			}
			delim := script[i]
			i++
			for part := 0; part < 2; part++ {
				start := i
				for i < n && script[i] != delim {
					if script[i] == '\\' {
						i++
					}
					i++
				}
				if i >= n {
					return cmds, false
				}
				if part == 0 && c.cmd == 's' {
					c.re, c.delim = script[start:i], delim
				}
				i++
			}
			// flags, up to a separator (w FILE runs to the line's end)
			for i < n && !strings.ContainsRune(";\n}", rune(script[i])) {
				if script[i] == 'w' {
					skipTo("\n")
					break
				}
				i++
			}
		case 'a', 'i', 'c':
			// text to the end of the line; backslash-newline continues
			for i < n && script[i] != '\n' {
				if script[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R', 'w', 'W', ':', 'e', 'F', 'v', 'z':
			skipTo("\n") // filenames and labels run to the end of the line
		case 'b', 't', 'T':
			skipTo(";\n}")
		case 'q', 'Q', 'l', 'L':
			for i < n && (script[i] == ' ' || (script[i] >= '0' && script[i] <= '9')) {
				i++
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=':
		default:
			return cmds, false
		}
		cmds = append(cmds, c)
	}
	return cmds, len(stack) == 0
}

// lines returns the line range a command's addresses select, when numeric.
func (c sedCmd) lines() (rng, bool) {
	if c.neg {
		return rng{}, false
	}
	switch c.a1.kind {
	case 0:
		return rng{1, 0}, true
	case 'n':
	default:
		return rng{}, false
	}
	a := max(c.a1.n, 1)
	switch c.a2.kind {
	case 0:
		return rng{a, a}, true
	case 'n':
		// a second address not after the first selects only the first
		return rng{a, max(a, c.a2.n)}, true
	case '$':
		return rng{a, 0}, true
	case '+':
		return rng{a, a + c.a2.n}, true
	case '~':
		if c.a2.n <= 0 {
			return rng{a, a}, true
		}
		end := ((a + c.a2.n - 1) / c.a2.n) * c.a2.n
		return rng{a, max(end, a)}, true
	}
	return rng{}, false
}

// printed returns the lines `sed` prints. quiet is -n. known is false when
// a regex or `$` address makes them depend on the content.
func printed(cmds []sedCmd, quiet bool) (sel []rng, known bool) {
	if !quiet {
		// everything is printed, unless an early q cuts the file short
		for _, c := range cmds {
			if (c.cmd == 'q' || c.cmd == 'Q') && c.a1.kind == 'n' && c.a2.kind == 0 {
				end := c.a1.n
				if c.cmd == 'Q' {
					end--
				}
				return []rng{{1, max(end, 0)}}, true
			}
		}
		return nil, true
	}
	sel = []rng{}
	for _, c := range cmds {
		if c.cmd != 'p' && c.cmd != 'P' && c.cmd != 'l' {
			continue
		}
		r, ok := c.lines()
		if !ok {
			return nil, false
		}
		if r.b == 0 && r.a <= 1 {
			return nil, true
		}
		sel = append(sel, r)
	}
	return mergeRanges(sel), true
}

// edited returns the lines an in-place sed script changes, when every
// changing command has a numeric address.
func edited(cmds []sedCmd) ([]rng, bool) {
	var sel []rng
	for _, c := range cmds {
		switch c.cmd {
		case 'p', 'P', 'l', '=', 'b', 't', 'T', ':', 'h', 'H', 'x', 'n', 'N', 'g', 'G', 'q', 'Q':
			continue
		}
		r, ok := c.lines()
		if !ok || r.b == 0 {
			return nil, false
		}
		sel = append(sel, r)
	}
	return mergeRanges(sel), len(sel) > 0
}

func mergeRanges(rs []rng) []rng {
	if len(rs) < 2 {
		return rs
	}
	out := make([]rng, 0, len(rs))
	for _, r := range rs {
		merged := false
		for k := range out {
			o := &out[k]
			if o.b != 0 && r.b != 0 && r.a <= o.b+1 && o.a <= r.b+1 {
				o.a, o.b = min(o.a, r.a), max(o.b, r.b)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, r)
		}
	}
	// keep file order
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].a < out[j-1].a; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (w *walker) sed(c *call) out {
	var scripts []string
	inplace, quiet, extended := false, false, false
	var ops []string
	args := c.args
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			inplace = true
		case a == "--quiet" || a == "--silent":
			quiet = true
		case a == "--regexp-extended":
			extended = true
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, a[len("--expression="):])
		case a == "--expression" || a == "--file" || a == "--line-length":
			if i+1 < len(args) {
				i++
				if a == "--expression" {
					scripts = append(scripts, args[i])
				} else if a == "--file" {
					scripts = append(scripts, w.fileText(args[i]))
				}
			}
		case strings.HasPrefix(a, "--file="):
			scripts = append(scripts, w.fileText(a[len("--file="):]))
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'n':
					quiet = true
				case 'E', 'r':
					extended = true
				case 'i':
					inplace = true
					if j == len(a)-1 && i+1 < len(args) && args[i+1] == "" {
						i++ // BSD: -i '' (no backup suffix)
					}
					j = len(a)
				case 'e', 'f', 'l':
					v := a[j+1:]
					if v == "" && i+1 < len(args) {
						i++
						v = args[i]
					}
					switch a[j] {
					case 'e':
						scripts = append(scripts, v)
					case 'f':
						scripts = append(scripts, w.fileText(v))
					}
					j = len(a)
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if len(scripts) == 0 {
		if len(ops) == 0 {
			return out{}
		}
		scripts, ops = ops[:1], ops[1:]
	}
	cmds, parsed := parseSed(strings.Join(scripts, "\n"))
	if inplace {
		ranges, lined := edited(cmds)
		for _, o := range ops {
			rp, ok := w.addPath(event.Edit, o)
			if !ok {
				if strings.ContainsRune(o, unknownRune) {
					w.add(event.Edit, event.Scope{})
				}
				continue
			}
			if parsed && !lined {
				// s/re/…/ with no address: the lines it matches, when the
				// content is known (and current), else the file
				if rs, ok := w.substituted(rp, cmds, extended); ok {
					ranges, lined = rs, len(rs) > 0
				}
			}
			delete(w.s.written, rp)
			if parsed && lined {
				last := len(w.res.Findings) - 1
				w.res.Findings[last].Scope = event.LineScope(rp, ranges[0].a, ranges[0].b)
				for _, r := range ranges[1:] {
					w.add(event.Edit, event.LineScope(rp, r.a, r.b))
				}
			}
		}
		return out{}
	}
	sel, known := printed(cmds, quiet)
	if !parsed {
		sel, known = nil, false
	}
	transforms := !quiet && hasChange(cmds)
	files := w.readOperands(ops)
	target := c.in
	if len(files) > 0 {
		target = w.source(files, nil, false)
	}
	if target == nil {
		return out{}
	}
	switch {
	case !known:
		target.subset = true
		target.exact = false
	case sel != nil:
		w.selectLines(target, sel)
	}
	if transforms {
		target.exact = false
	}
	return out{stream: target}
}

func hasChange(cmds []sedCmd) bool {
	for _, c := range cmds {
		switch c.cmd {
		case 's', 'y', 'd', 'D', 'a', 'i', 'c', 'p', 'P', 'n', 'N', 'g', 'G', 'x', '=':
			return true
		}
	}
	return false
}

// fileText is the known content of a script file, or unknownRune, which no
// parser accepts, so the caller assumes the worst.
func (w *walker) fileText(p string) string {
	if rp, ok := w.resolve(p); ok {
		if c, ok := w.s.content(rp); ok {
			return c
		}
	}
	return "\x00"
}

// substituted are the lines of rp that the script's unaddressed s
// commands match, from its known content; ok is false when it cannot
// tell (another command, an address, a pattern Go's regexp cannot take,
// an unknown content). No match is no edit: an empty list.
func (w *walker) substituted(rp string, cmds []sedCmd, extended bool) ([]rng, bool) {
	content, ok := w.s.content(rp)
	if !ok {
		return nil, false // nothing to match against: no pattern compiled
	}
	var res []*regexp.Regexp
	for _, c := range cmds {
		if c.cmd != 's' || c.a1.kind != 0 || c.neg || c.re == "" {
			return nil, false
		}
		re, err := regexp.Compile(sedRegexp(c.re, c.delim, extended))
		if err != nil {
			return nil, false
		}
		res = append(res, re)
	}
	if len(res) == 0 {
		return nil, false
	}
	var sel []rng
	for i, l := range splitLines(content) {
		for _, re := range res {
			if re.MatchString(l) {
				sel = append(sel, rng{i + 1, i + 1})
				break
			}
		}
	}
	return mergeRanges(sel), true
}

// sedRegexp is a sed pattern in Go's syntax: in a basic expression \( \)
// \{ \} \+ \? \| are the operators and the bare characters literal;
// \< and \> are word boundaries; an escaped delimiter is the delimiter.
func sedRegexp(re string, delim byte, extended bool) string {
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		if c == '\\' && i+1 < len(re) {
			i++
			d := re[i]
			switch {
			case d == delim:
				b.WriteString(regexp.QuoteMeta(string(d)))
			case d == '<' || d == '>':
				b.WriteString(`\b`)
			case !extended && strings.IndexByte("(){}+?|", d) >= 0:
				b.WriteByte(d)
			case d == 'n':
				b.WriteString(`\n`)
			default:
				b.WriteByte('\\')
				b.WriteByte(d)
			}
			continue
		}
		if !extended && strings.IndexByte("(){}+?|", c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

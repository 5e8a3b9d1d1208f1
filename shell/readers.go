package shell

import (
	"strings"

	"github.com/swetouch/swetouch/event"
)

// readOperands resolves the file operands of a reader, skipping ones that
// name no file.
func (w *walker) readOperands(ops []string) []string {
	var files []string
	for _, o := range ops {
		if o == "-" {
			continue
		}
		if strings.ContainsRune(o, unknownRune) {
			w.add(event.Read, event.Scope{})
			continue
		}
		if rp, ok := w.resolve(o); ok {
			files = append(files, rp)
		}
	}
	return files
}

// cat, nl: a source of a stream, numbered with -n/-b or nl.
func (w *walker) cat(c *call) out {
	var p parsed
	numbered := false
	if c.name == "nl" {
		p = opts{short: "bdfhilnpsvw", long: []string{"body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"}}.parse(c.args)
		numbered = true
		if v, ok := p.get("v", "starting-line-number"); ok && v != "1" {
			numbered = false // numbers do not match file lines
		}
	} else {
		p = opts{}.parse(c.args)
		numbered = p.has("n", "b", "number", "number-nonblank")
	}
	files := w.readOperands(p.operands)
	if len(files) == 0 {
		if c.in != nil {
			if numbered && c.in.ranges == nil && !c.in.subset && c.in.tail == 0 {
				c.in.numbered = true
			}
			return out{stream: c.in}
		}
		if c.stdin != nil {
			return out{text: c.stdin}
		}
		return out{}
	}
	return out{stream: w.source(files, nil, numbered)}
}

// lineCountArg reads head/tail's -n/-N count: n, and whether it is "+N"
// (tail: from line N) or "-N" (head: all but the last N).
func lineCountArg(args []string) (n int, plus, minus, bytes, ok bool, rest []string) {
	n, ok = 10, true
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v string
		switch {
		case a == "-n" || a == "--lines" || a == "-c" || a == "--bytes":
			if i+1 < len(args) {
				i++
				v = args[i]
			}
			bytes = a == "-c" || a == "--bytes"
		case strings.HasPrefix(a, "--lines="):
			v = a[len("--lines="):]
		case strings.HasPrefix(a, "--bytes="):
			v, bytes = a[len("--bytes="):], true
		case strings.HasPrefix(a, "-n") && len(a) > 2:
			v = a[2:]
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			v, bytes = a[2:], true
		case isNumberish(a):
			v = a[1:]
		case a == "-q" || a == "-v" || a == "-f" || a == "-F" || a == "--follow" || a == "-z":
			continue
		case a == "--":
			rest = append(rest, args[i+1:]...)
			return
		default:
			rest = append(rest, a)
			continue
		}
		switch {
		case strings.HasPrefix(v, "+"):
			plus, v = true, v[1:]
		case strings.HasPrefix(v, "-"):
			minus, v = true, v[1:]
		}
		n, ok = atoi(v)
	}
	return
}

func (w *walker) head(c *call) out {
	n, _, minus, bytes, ok, ops := lineCountArg(c.args)
	var sel []rng
	switch {
	case !ok || bytes || minus:
		sel = nil
	case n == 0:
		sel = []rng{}
	default:
		sel = []rng{{1, n}}
	}
	files := w.readOperands(ops)
	if len(files) == 0 {
		if c.in != nil && sel != nil {
			w.selectLines(c.in, sel)
		} else if c.in != nil {
			c.in.exact = c.in.exact && !bytes
		}
		return out{stream: c.in}
	}
	if len(files) > 1 {
		// head heads each file on its own, under a header: each file's
		// lines are read, and the output is no one file's to follow
		var o out
		for _, f := range files {
			st := w.source([]string{f}, sel, false)
			st.exact = false
			o.printed = append(o.printed, st)
		}
		return o
	}
	st := w.source(files, sel, false)
	if bytes || !ok {
		st.exact = false
	}
	return out{stream: st}
}

func (w *walker) tail(c *call) out {
	n, plus, _, bytes, ok, ops := lineCountArg(c.args)
	files := w.readOperands(ops)
	target := c.in
	if len(files) > 0 {
		target = w.source(files, nil, false)
	}
	if target == nil {
		return out{}
	}
	switch {
	case !ok || bytes:
		target.exact = false
	case plus:
		w.selectLines(target, []rng{{max(n, 1), 0}})
	case n == 0:
		w.selectLines(target, []rng{})
	default:
		if target.subset || len(target.files) != 1 {
			break
		}
		if target.ranges != nil && w.closeRanges(target.files[0], target.ranges) != nil {
			target.ranges = takeLast(w.closeRanges(target.files[0], target.ranges), n)
		} else if target.tail == 0 || n < target.tail {
			target.tail = n
		}
	}
	return out{stream: target}
}

// reader handles commands that read their file operands whole.
func (w *walker) reader(c *call) out {
	o := opts{}
	switch c.name {
	case "cut":
		o.short = "bcdf"
	case "sort":
		o.short = "ktoST"
	case "diff", "colordiff":
		o = opts{short: "CUIFxXSL", long: []string{"label", "from-file", "to-file"}}
	case "od", "xxd", "hexdump":
		o.short = "AjNtwslco"
	}
	p := o.parse(c.args)
	files := w.readOperands(p.operands)
	if len(files) == 0 {
		return out{}
	}
	st := w.source(files, nil, false)
	switch c.name {
	case "less", "more", "most", "view":
		return out{stream: st}
	}
	st.exact = false
	return out{}
}

func (w *walker) tee(c *call) out {
	p := opts{}.parse(c.args)
	for _, o := range p.operands {
		if _, ok := w.write(o, c.stdin, p.has("a", "append")); !ok && strings.ContainsRune(o, unknownRune) {
			w.add(event.Edit, event.Scope{})
		}
	}
	if c.stdin != nil {
		return out{text: c.stdin}
	}
	return out{stream: c.in}
}

func (w *walker) echo(c *call) out {
	args := c.args
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		newline = newline && !strings.Contains(args[0], "n")
		escapes = strings.Contains(args[0], "e")
		args = args[1:]
	}
	t := strings.Join(args, " ")
	if escapes {
		t = unescapeANSI(t)
	}
	if newline {
		t += "\n"
	}
	return out{text: &t}
}

func (w *walker) printf(c *call) out {
	if len(c.args) == 0 || c.args[0] == "-v" {
		return out{}
	}
	f := c.args[0]
	if len(c.args) > 1 {
		if f != "%s" && f != "%s\n" && f != "%b" {
			return out{}
		}
		t := strings.Join(c.args[1:], "")
		if strings.HasSuffix(f, "\n") {
			t += "\n"
		}
		return out{text: &t}
	}
	if strings.Contains(f, "%") {
		return out{}
	}
	t := unescapeANSI(f)
	return out{text: &t}
}

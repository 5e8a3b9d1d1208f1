package shell

import (
	"path"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// command classifies one simple command.
func (w *walker) command(c *call) out {
	switch c.name {
	case "cd", "pushd":
		w.cd(c)
	case "sudo", "nohup", "nice", "time", "command", "builtin", "exec", "stdbuf", "unbuffer", "chronic", "ionice":
		return w.wrapped(c)
	case "timeout":
		return w.timeout(c)
	case "env":
		return w.env(c)
	case "xargs":
		w.xargs(c)
	case "bash", "sh", "dash", "zsh", "ksh":
		w.shell(c)
	case "source", ".":
		if len(c.args) > 0 {
			w.script(c.args[0], false)
		}
	case "eval":
		return w.eval(strings.Join(c.args, " "))
	case "cat", "nl", "bat", "batcat":
		return w.cat(c)
	case "head":
		return w.head(c)
	case "tail":
		return w.tail(c)
	case "sed", "gsed":
		return w.sed(c)
	case "awk", "gawk", "mawk", "nawk":
		return w.awk(c)
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep":
		return w.grep(c)
	case "less", "more", "most", "view", "wc", "od", "xxd", "hexdump", "strings", "md5sum", "sha1sum", "sha256sum", "sort", "uniq", "cut", "column", "fold", "expand", "rev", "tac", "cmp", "diff", "colordiff", "sdiff", "diff3", "file", "iconv":
		return w.reader(c)
	case "tee":
		return w.tee(c)
	case "echo":
		return w.echo(c)
	case "printf":
		return w.printf(c)
	case "touch", "rm", "unlink", "shred", "truncate", "chmod", "ed", "ex", "vi", "vim", "nvim", "nano", "emacs", "pico", "dos2unix", "unix2dos":
		w.edits(c)
	case "mv":
		w.move(c)
	case "cp", "install":
		w.copy(c)
	case "ln":
		w.link(c)
	case "perl":
		w.perl(c)
	case "patch":
		w.patch(c)
	case "apply_patch", "applypatch":
		w.applyPatch(c)
	case "git":
		return w.git(c)
	case "str_replace_editor", "str_replace_based_edit_tool", "edit_tool":
		w.editorTool(c)
	case "find":
		w.find(c)
	case "python", "python2", "python3", "pypy", "pypy3", "ipython":
		return w.python(c)
	default:
		if strings.HasPrefix(c.name, "python") && isDigits(strings.ReplaceAll(c.name[6:], ".", "")) {
			return w.python(c)
		}
		if w.testRunner(c) {
			return out{}
		}
		if strings.HasSuffix(c.name, ".py") {
			return out{printed: w.runScript(c.argv0, c.args, "python")}
		} else if strings.HasSuffix(c.name, ".sh") {
			w.script(c.argv0, false)
		}
	}
	return out{}
}

// cd tracks the working directory; paths after it resolve against it.
func (w *walker) cd(c *call) {
	p := opts{}.parse(c.args)
	if len(p.operands) == 0 {
		w.cwd = ""
		return
	}
	d := p.operands[0]
	if d == "-" || strings.ContainsRune(d, unknownRune) {
		return
	}
	if rp, ok := w.s.join(w.cwd, d); ok {
		if rp == "." {
			rp = ""
		}
		w.cwd = rp
	}
}

// wrapped strips a wrapper command and its options.
func (w *walker) wrapped(c *call) out {
	args := c.args
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		valued := (c.name == "sudo" && (args[0] == "-u" || args[0] == "-g")) || (c.name == "nice" && args[0] == "-n") || (c.name == "ionice" && (args[0] == "-c" || args[0] == "-n"))
		args = args[1:]
		if valued && len(args) > 0 {
			args = args[1:]
		}
	}
	return w.dispatch(args, c.in, c.stdin, c.stdinFile)
}

func (w *walker) timeout(c *call) out {
	args := c.args
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		v := args[0]
		args = args[1:]
		if (v == "-s" || v == "-k" || v == "--signal" || v == "--kill-after") && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) > 0 {
		args = args[1:] // the duration
	}
	return w.dispatch(args, c.in, c.stdin, c.stdinFile)
}

func (w *walker) env(c *call) out {
	args := c.args
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			if len(args) > 1 && (a == "-C" || a == "--chdir") {
				w.cd(&call{args: []string{args[1]}})
			}
			args = args[min(2, len(args)):]
		case strings.HasPrefix(a, "-"):
			args = args[1:]
		case strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			args = args[1:]
		default:
			return w.dispatch(args, c.in, c.stdin, c.stdinFile)
		}
	}
	return out{}
}

// xargs runs its command with operands from stdin: the targets are unknown
// (unless the input stream names them, which it does not).
func (w *walker) xargs(c *call) {
	args := c.args
	repl := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		switch {
		case a == "-I" || a == "-n" || a == "-P" || a == "-d" || a == "-L" || a == "-a" || a == "-s" || a == "-E":
			if a == "-I" && len(args) > 0 {
				repl = args[0]
			}
			if len(args) > 0 {
				args = args[1:]
			}
		case strings.HasPrefix(a, "-I"):
			repl = a[2:]
		}
	}
	if len(args) == 0 {
		return
	}
	cmd := make([]string, 0, len(args)+1)
	for _, a := range args {
		if repl != "" {
			a = strings.ReplaceAll(a, repl, unknown)
		}
		cmd = append(cmd, a)
	}
	if repl == "" {
		cmd = append(cmd, unknown)
	}
	w.dispatch(cmd, nil, nil, "")
}

// find -exec/-execdir/-ok runs a command on each found file.
func (w *walker) find(c *call) {
	args := c.args
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			cmd := make([]string, 0, j-i-1)
			for _, a := range args[i+1 : j] {
				cmd = append(cmd, strings.ReplaceAll(a, "{}", unknown))
			}
			w.dispatch(cmd, nil, nil, "")
			i = j
		case "-delete", "-fprint", "-fprintf", "-fls":
			w.add(event.Edit, event.Scope{})
		}
	}
}

// shell handles `bash -c STRING`, `bash script.sh` and `bash <<EOF`.
func (w *walker) shell(c *call) {
	p := opts{short: "oO", long: []string{"rcfile", "init-file"}}.parse(c.args)
	if p.has("c") {
		// -c: the first operand is the command string
		if len(p.operands) > 0 {
			w.nested(p.operands[0])
		}
		return
	}
	if len(p.operands) > 0 && p.operands[0] != "-" {
		w.script(p.operands[0], true)
		return
	}
	if c.stdin != nil {
		w.nested(*c.stdin)
	}
}

// nested classifies a command string inside the current one (`bash -c`).
// eval runs its arguments as commands of the same shell: the directory
// they change to stays, and the last one's output is the statement's
// (Claude Code wraps every command as `… && eval '<command>' < /dev/null`).
func (w *walker) eval(cmd string) out {
	if w.depth >= maxDepth {
		return out{}
	}
	f, err := w.s.parser.Parse(strings.NewReader(cmd), "")
	if err != nil {
		w.nested(cmd)
		return out{}
	}
	w.depth++
	defer func() { w.depth-- }()
	var o out
	for i, st := range f.Stmts {
		if i > 0 {
			w.show(o)
		}
		o = w.stmt(st, nil)
	}
	return o
}

func (w *walker) nested(cmd string) {
	if w.depth >= maxDepth || strings.ContainsRune(cmd, unknownRune) && strings.TrimSpace(strings.ReplaceAll(cmd, unknown, "")) == "" {
		return
	}
	f, err := w.s.parser.Parse(strings.NewReader(cmd), "")
	saved := w.cwd
	w.depth++
	if err != nil {
		w.res.Fallback = true
		if w.res.Err == "" {
			w.res.Err = "nested: " + err.Error()
		}
		w.tokenRules(cmd)
	} else {
		w.stmts(f.Stmts)
	}
	w.depth--
	w.cwd = saved
}

// script classifies a shell script file by its known content.
func (w *walker) script(p string, subshell bool) {
	rp, ok := w.resolve(p)
	if !ok {
		return
	}
	if body, ok := w.s.content(rp); ok {
		saved := w.cwd
		w.nested(body)
		if !subshell {
			w.cwd = saved
		}
	}
}

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
		if rp, ok := w.addPath(event.Edit, o); ok {
			w.remember(rp, c.stdin, p.has("a", "append"))
		} else if strings.ContainsRune(o, unknownRune) {
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

// edits records every operand as edited.
func (w *walker) edits(c *call) {
	o := opts{}
	switch c.name {
	case "truncate":
		o = opts{short: "sr", long: []string{"size", "reference"}}
	case "touch":
		o = opts{short: "dtr", long: []string{"date", "reference"}}
	case "chmod":
		o = opts{long: []string{"reference"}}
	}
	p := o.parse(c.args)
	ops := p.operands
	if c.name == "chmod" && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, op := range ops {
		if strings.HasPrefix(op, "+") && (c.name == "vim" || c.name == "vi" || c.name == "nvim") {
			continue
		}
		if _, ok := w.addPath(event.Edit, op); !ok && strings.ContainsRune(op, unknownRune) {
			w.add(event.Edit, event.Scope{})
		}
		if c.name == "rm" || c.name == "unlink" || c.name == "shred" {
			if rp, ok := w.resolve(op); ok {
				delete(w.s.written, rp)
			}
		}
	}
}

// move: the sources disappear, the destination appears.
func (w *walker) move(c *call) {
	p := opts{short: "tS", long: []string{"target-directory", "suffix"}}.parse(c.args)
	dest, hasT := p.get("t", "target-directory")
	srcs := p.operands
	if !hasT {
		if len(srcs) < 2 {
			return
		}
		dest, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
	}
	for _, s := range srcs {
		rs, ok := w.addPath(event.Edit, s)
		d := w.destination(dest, s, hasT || len(srcs) > 1)
		if rd, ok2 := w.addPath(event.Edit, d); ok && ok2 {
			if content, known := w.s.written[rs]; known {
				w.s.written[rd] = content
			}
			delete(w.s.written, rs)
		}
	}
}

func (w *walker) copy(c *call) {
	p := opts{short: "tSm", long: []string{"target-directory", "suffix", "mode"}}.parse(c.args)
	dest, hasT := p.get("t", "target-directory")
	srcs := p.operands
	if !hasT {
		if len(srcs) < 2 {
			return
		}
		dest, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
	}
	for _, s := range srcs {
		rs, ok := w.resolve(s)
		if ok {
			w.source([]string{rs}, nil, false).exact = false
		}
		d := w.destination(dest, s, hasT || len(srcs) > 1)
		if rd, ok2 := w.addPath(event.Edit, d); ok && ok2 {
			if content, known := w.s.content(rs); known {
				w.s.written[rd] = content
			}
		}
	}
}

func (w *walker) link(c *call) {
	p := opts{short: "tS", long: []string{"target-directory", "suffix"}}.parse(c.args)
	if len(p.operands) >= 2 {
		w.addPath(event.Edit, p.operands[len(p.operands)-1])
	}
}

// destination is where a copied or moved file lands: inside dest when dest
// is a directory (trailing slash, several sources, -t, or a known dir).
func (w *walker) destination(dest, src string, isDir bool) string {
	if isDir || strings.HasSuffix(dest, "/") || dest == "." || dest == ".." {
		return strings.TrimSuffix(dest, "/") + "/" + path.Base(src)
	}
	if path.Ext(dest) == "" && path.Ext(src) != "" && !strings.HasPrefix(path.Base(dest), ".") {
		// `cp a.py backup` copies into a directory far more often than
		// it creates an extensionless file
		if rd, ok := w.resolve(dest); ok && w.s.files != nil {
			if _, err := w.s.files.ReadFile(rd); err != nil {
				return dest + "/" + path.Base(src)
			}
		}
	}
	return dest
}

// perl: -i edits its operands; otherwise it reads them.
func (w *walker) perl(c *call) {
	args := c.args
	inplace, script := false, false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1 && !script:
			letters := a[1:]
			for j := 0; j < len(letters); j++ {
				switch letters[j] {
				case 'i':
					inplace = true
					j = len(letters) // -i takes the rest as a suffix
				case 'e', 'E':
					if j == len(letters)-1 && i+1 < len(args) {
						i++
					}
					script = true
					j = len(letters)
				case 'M', 'm', 'I', 'l', '0', 'x', 'C':
					j = len(letters)
				}
			}
		default:
			if !script {
				script = true // the program file or first operand
				continue
			}
			ops = append(ops, a)
		}
	}
	kind := event.Read
	if inplace {
		kind = event.Edit
	}
	for _, o := range ops {
		if strings.ContainsRune(o, unknownRune) {
			w.add(kind, event.Scope{})
			continue
		}
		if kind == event.Edit {
			w.addPath(event.Edit, o)
		} else if rp, ok := w.resolve(o); ok {
			w.source([]string{rp}, nil, false).exact = false
		}
	}
}

// editorTool handles SWE-agent's str_replace_editor command line.
func (w *walker) editorTool(c *call) {
	if len(c.args) < 2 {
		return
	}
	action, target := c.args[0], c.args[1]
	rp, ok := w.resolve(target)
	if !ok {
		return
	}
	p := opts{long: []string{"view_range", "old_str", "new_str", "file_text", "insert_line"}}.parse(c.args[2:])
	switch action {
	case "view":
		if path.Ext(rp) == "" && !w.known(rp) {
			return // most likely a directory listing
		}
		var sel []rng
		if v, ok := p.get("view_range"); ok {
			rest := p.operands
			a, okA := atoi(strings.Trim(v, "[], "))
			if strings.Contains(v, ",") || strings.Contains(v, " ") {
				parts := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '[' || r == ']' })
				if len(parts) == 2 {
					rest = []string{parts[1]}
					a, okA = atoi(parts[0])
				}
			}
			if okA && len(rest) > 0 {
				if rest[0] == "-1" {
					sel = []rng{{max(a, 1), 0}}
				} else if b, okB := atoi(rest[0]); okB {
					sel = []rng{{max(a, 1), max(a, b, 1)}}
				}
			}
		}
		w.source([]string{rp}, sel, true)
	case "create", "str_replace", "insert", "undo_edit", "write":
		if action == "insert" {
			if v, ok := p.get("insert_line"); ok {
				if n, ok := atoi(v); ok {
					w.add(event.Edit, event.LineScope(rp, max(n, 1), n+1))
					w.s.dirty[rp] = true
					return
				}
			}
		}
		w.addPath(event.Edit, target)
		if action == "create" {
			if t, ok := p.get("file_text"); ok {
				w.s.written[rp] = t
			}
		}
	}
}

// known reports whether the session has content for a path.
func (w *walker) known(p string) bool {
	_, ok := w.s.content(p)
	return ok
}

package shell

import (
	"path"
	"strings"

	"github.com/swetouch/swetouch/event"
)

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
		content, known := "", false
		if rs, ok := w.resolve(s); ok {
			content, known = w.s.content(rs)
		}
		_, ok := w.addPath(event.Edit, s)
		d := w.destination(dest, s, hasT || len(srcs) > 1)
		if rd, ok2 := w.addPath(event.Edit, d); ok && ok2 && known {
			w.s.written[rd] = content
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

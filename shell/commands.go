package shell

import (
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
	case "view":
		w.vim(c)
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep":
		return w.grep(c)
	case "less", "more", "most", "wc", "od", "xxd", "hexdump", "strings", "md5sum", "sha1sum", "sha256sum", "sort", "uniq", "cut", "column", "fold", "expand", "rev", "tac", "cmp", "diff", "colordiff", "sdiff", "diff3", "file", "iconv":
		return w.reader(c)
	case "tee":
		return w.tee(c)
	case "echo":
		return w.echo(c)
	case "printf":
		return w.printf(c)
	case "ex", "vi", "vim", "nvim":
		w.vim(c)
	case "touch", "rm", "unlink", "shred", "truncate", "chmod", "ed", "nano", "emacs", "pico", "dos2unix", "unix2dos":
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
	files, known := w.findFiles(args)
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			tmpl := args[i+1 : j]
			switch {
			case !known || args[i] != "-exec" || j == len(args):
				cmd := make([]string, 0, len(tmpl))
				for _, a := range tmpl {
					cmd = append(cmd, strings.ReplaceAll(a, "{}", unknown))
				}
				w.dispatch(cmd, nil, nil, "")
			case args[j] == "+":
				// one command with every file in the place of {}
				var cmd []string
				for _, a := range tmpl {
					if a == "{}" {
						cmd = append(cmd, files...)
					} else {
						cmd = append(cmd, a)
					}
				}
				w.dispatch(cmd, nil, nil, "")
			default:
				for _, f := range files {
					cmd := make([]string, 0, len(tmpl))
					for _, a := range tmpl {
						cmd = append(cmd, strings.ReplaceAll(a, "{}", f))
					}
					w.dispatch(cmd, nil, nil, "")
				}
			}
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
	f, err := w.s.parse(cmd)
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
	f, err := w.s.parse(cmd)
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

// known reports whether the session has content for a path.
func (w *walker) known(p string) bool {
	_, ok := w.s.content(p)
	return ok
}

package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/swetouch/swetouch/event"
)

// unknownRune marks a word whose value cannot be known statically
// (expansions, command substitutions, unquoted globs).
const unknownRune = '\x00'

const unknown = string(unknownRune)

// maxDepth bounds nested shells (`bash -c "bash -c …"`) and scripts.
const maxDepth = 8

type walker struct {
	s       *Session
	res     *Result
	cwd     string
	vars    map[string]string
	depth   int
	streams []*stream
	// showsDiff is set by commands whose output is a diff of the worktree
	// (git diff, git show, diff -u): hunk headers name the lines shown.
	showsDiff bool
	// grepNames is set by a recursive grep without line numbers: its
	// output's "path:text" lines show the agent those lines of the files.
	grepNames bool
	// changed are the files this command edited, stale once it is over
	changed []string
}

// call is one simple command with its words resolved.
type call struct {
	name  string   // base name of argv[0]
	argv0 string   // argv[0] as written
	args  []string // argv[1:]; unknown words hold unknownRune
	in    *stream  // piped stdin
	stdin *string  // here-document, here-string or `< file` content
	// stdinFile is the path of `< file`, when there is one.
	stdinFile string
}

// out is what a command produced on stdout, when it is known.
type out struct {
	stream *stream
	text   *string // literal stdout (echo, cat of a heredoc)
	// printed are files a program read and may print parts of (a Python
	// script's reads): shown with the output, never piped on
	printed []*stream
}

func (w *walker) add(k event.Kind, sc event.Scope) int {
	if k == event.Edit {
		w.edited(sc.Path)
	}
	w.res.Findings = append(w.res.Findings, Finding{Kind: k, Scope: sc})
	return len(w.res.Findings) - 1
}

// addPath records a finding for a path operand, resolved against cwd.
func (w *walker) addPath(k event.Kind, p string) (string, bool) {
	rp, ok := w.s.join(w.cwd, p)
	if !ok || rp == "." {
		return "", false
	}
	w.add(k, event.FileScope(rp))
	if k == event.Edit && !strings.HasPrefix(rp, "/") {
		w.s.dirty[rp] = true
	}
	return rp, true
}

func (w *walker) resolve(p string) (string, bool) {
	rp, ok := w.s.join(w.cwd, p)
	if !ok || rp == "." {
		return "", false
	}
	return rp, true
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		w.show(w.stmt(st, nil))
	}
}

// show marks a statement's stdout as displayed to the agent.
func (w *walker) show(o out) {
	if o.stream != nil {
		o.stream.shown = true
	}
	for _, st := range o.printed {
		st.shown = true
	}
}

// stmt walks a statement with an optional piped input and returns what it
// writes to stdout, when that is a file stream worth following.
func (w *walker) stmt(st *syntax.Stmt, in *stream) out {
	if st == nil || st.Cmd == nil {
		w.redirects(st, out{})
		return out{}
	}
	var stdin *string
	var stdinFile string
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				body := w.docLit(r.Hdoc)
				stdin = &body
			} else {
				empty := ""
				stdin = &empty
			}
		case syntax.WordHdoc:
			v := w.lit(r.Word) + "\n"
			stdin = &v
		case syntax.RdrIn:
			p := w.lit(r.Word)
			if rp, ok := w.resolve(p); ok {
				stdinFile = rp
				if c, ok := w.s.content(rp); ok {
					stdin = &c
				}
				in = w.source([]string{rp}, nil, false)
			}
		}
	}
	var o out
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		o = w.callExpr(c, in, stdin, stdinFile)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			left := w.stmt(c.X, in)
			o = w.stmt(c.Y, left.stream)
		default:
			w.show(w.stmt(c.X, in))
			o = w.stmt(c.Y, nil)
		}
	case *syntax.Subshell:
		saved := w.cwd
		w.stmts(c.Stmts)
		w.cwd = saved
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond)
			w.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		w.forClause(c)
	case *syntax.CaseClause:
		for _, it := range c.Items {
			w.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		w.stmt(c.Body, nil)
	case *syntax.TimeClause:
		o = w.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, nil)
	case *syntax.DeclClause:
		for _, a := range c.Args {
			w.assign(a)
		}
	}
	w.redirects(st, o)
	if st.Negated || st.Background {
		return out{}
	}
	for _, r := range st.Redirs {
		if isOutRedirect(r) && !isFdDup(w, r) {
			return out{} // stdout went to a file, nothing displayed
		}
	}
	return o
}

// isOutRedirect reports a redirection that sends stdout to a file, so the
// command's output is not displayed.
func isOutRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
		return true
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.DplOut:
		return r.N == nil || r.N.Value == "1"
	}
	return false
}

// isFdDup reports `>&2`-style duplications, which name no file.
func isFdDup(w *walker, r *syntax.Redirect) bool {
	if r.Op != syntax.DplOut && r.Op != syntax.DplIn {
		return false
	}
	v := w.lit(r.Word)
	return v == "-" || isDigits(v)
}

// redirects records the files a statement's redirections write, and what it
// wrote when the content is known (`cat > f <<EOF`).
func (w *walker) redirects(st *syntax.Stmt, o out) {
	if st == nil {
		return
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
			if isFdDup(w, r) {
				continue
			}
			p := w.lit(r.Word)
			if rp, ok := w.resolve(p); ok && strings.HasPrefix(rp, "/") && w.isPwd(st) {
				// where the shell ended up, kept outside the workspace: an
				// agent's own bookkeeping (Claude Code ends every command
				// with `pwd -P >| /tmp/claude-…-cwd`), not an edit
				continue
			}
			stdoutToFile := r.N == nil || r.N.Value == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll
			var text *string
			if stdoutToFile {
				text = o.text
			}
			appendTo := r.Op == syntax.AppOut || r.Op == syntax.AppAll || r.Op == syntax.AppAllClob || r.Op == syntax.AppClob
			w.write(p, text, appendTo)
		}
	}
}

// isPwd reports a statement that is a plain `pwd`, whose only output is
// the shell's directory.
func (w *walker) isPwd(st *syntax.Stmt) bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	return ok && len(call.Args) > 0 && len(call.Assigns) == 0 && w.lit(call.Args[0]) == "pwd"
}

// write records an edit of the file at path p, and remembers what it holds
// when the command's text says (text, appended to what the session knew
// of it), so a later `python f.py` or `git apply f.diff` is classified by
// content.
func (w *walker) write(p string, text *string, appendTo bool) (string, bool) {
	rp, ok := w.resolve(p)
	if !ok {
		return "", false
	}
	prev, known := w.s.content(rp)
	if rp, ok = w.addPath(event.Edit, p); !ok || text == nil {
		return rp, ok
	}
	switch {
	case !appendTo:
		w.s.written[rp] = *text
	case known:
		w.s.written[rp] = prev + *text
	}
	return rp, true
}

func (w *walker) assign(a *syntax.Assign) {
	if a == nil || a.Name == nil {
		return
	}
	if w.vars == nil {
		w.vars = map[string]string{}
	}
	if a.Value == nil {
		w.vars[a.Name.Value] = ""
		return
	}
	w.vars[a.Name.Value] = w.lit(a.Value)
}

// forClause walks a loop body once per literal item, with the loop variable
// bound, so `for f in a.py b.py; do sed -i … $f; done` names both files.
func (w *walker) forClause(c *syntax.ForClause) {
	it, ok := c.Loop.(*syntax.WordIter)
	var items []string
	if ok {
		for _, item := range it.Items {
			items = w.expand(items, item)
		}
	}
	if !ok || it.Name == nil || len(items) == 0 || len(items) > 32 {
		w.stmts(c.Do)
		return
	}
	if w.vars == nil {
		w.vars = map[string]string{}
	}
	prev, had := w.vars[it.Name.Value]
	for _, item := range items {
		w.vars[it.Name.Value] = item
		w.stmts(c.Do)
	}
	if had {
		w.vars[it.Name.Value] = prev
	} else {
		delete(w.vars, it.Name.Value)
	}
}

func (w *walker) callExpr(c *syntax.CallExpr, in *stream, stdin *string, stdinFile string) out {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			w.assign(a)
		}
		return out{}
	}
	words := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		words = w.expand(words, a)
	}
	// Assignments before a command apply to that command only; keep them
	// visible for its arguments' resolution but do not persist them.
	return w.dispatch(words, in, stdin, stdinFile)
}

// dispatch runs the handler of argv[0]; wrappers recurse with the rest.
func (w *walker) dispatch(words []string, in *stream, stdin *string, stdinFile string) out {
	if len(words) == 0 {
		return out{}
	}
	c := &call{argv0: words[0], name: path.Base(words[0]), args: words[1:], in: in, stdin: stdin, stdinFile: stdinFile}
	return w.command(c)
}

// lit returns the value of a word after quote removal. Parts whose value
// cannot be known statically become unknownRune.
func (w *walker) lit(word *syntax.Word) string {
	if word == nil {
		return ""
	}
	if len(word.Parts) == 1 { // most words: one literal, or one quoted
		switch p := word.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.ContainsAny(p.Value, "\\*?[") {
				return p.Value
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return p.Value
			}
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				if l, ok := p.Parts[0].(*syntax.Lit); ok {
					return unescapeDouble(l.Value)
				}
			}
		}
	}
	var b strings.Builder
	w.parts(&b, word.Parts, false)
	return b.String()
}

func (w *walker) parts(b *strings.Builder, parts []syntax.WordPart, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(unescapeDouble(p.Value))
			} else {
				if strings.ContainsAny(p.Value, "*?[") && hasUnescapedGlob(p.Value) {
					b.WriteRune(unknownRune)
				}
				b.WriteString(unescapeBare(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(unescapeANSI(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			w.parts(b, p.Parts, true)
		case *syntax.ParamExp:
			if v, ok := w.param(p); ok {
				b.WriteString(v)
			} else {
				b.WriteRune(unknownRune)
			}
		case *syntax.CmdSubst:
			w.substitution(p.Stmts)
			b.WriteRune(unknownRune)
		case *syntax.ProcSubst:
			w.substitution(p.Stmts)
			b.WriteRune(unknownRune)
		default:
			b.WriteRune(unknownRune)
		}
	}
}

// substitution walks the commands of `$(…)` for what they read and edit;
// their output is not displayed.
func (w *walker) substitution(list []*syntax.Stmt) {
	saved := w.cwd
	w.stmts(list)
	w.cwd = saved
}

func (w *walker) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil {
		return "", false
	}
	switch p.Param.Value {
	case "PWD":
		if w.cwd == "" {
			return "/testbed", true
		}
		if strings.HasPrefix(w.cwd, "/") {
			return w.cwd, true
		}
		return "/testbed/" + w.cwd, true
	}
	v, ok := w.vars[p.Param.Value]
	return v, ok
}

// docLit returns a here-document body. Quoted delimiters give Lit parts;
// unquoted bodies may hold expansions, which become unknownRune.
func (w *walker) docLit(word *syntax.Word) string {
	if len(word.Parts) == 1 {
		if l, ok := word.Parts[0].(*syntax.Lit); ok {
			return l.Value // a quoted body, or one with nothing to expand
		}
	}
	var b strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.ParamExp:
			if v, ok := w.param(p); ok {
				b.WriteString(v)
			} else {
				b.WriteRune(unknownRune)
			}
		case *syntax.CmdSubst:
			w.substitution(p.Stmts)
			b.WriteRune(unknownRune)
		default:
			b.WriteRune(unknownRune)
		}
	}
	return b.String()
}

func hasUnescapedGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

func unescapeBare(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeANSI(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\'`, `'`, `\"`, `"`)
	return r.Replace(s)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

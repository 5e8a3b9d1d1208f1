package shell

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// quickParse builds the tree of a command in the plain shape most agent
// commands have, as mvdan.cc/sh's parser would (positions aside, which
// the classifier does not use), without the parser's start-up: its
// per-parse allocations are most of what parsing a short command costs,
// and four in five of an agent's commands are short and plain (ls -la,
// cd /testbed && python reproduce.py, grep -rn 'x' src | head). The shape:
// words of plain bytes, single quotes, and double quotes with no $, `
// or \ inside; the operators ;, &&, || and |; and the redirections >,
// >>, < and N>&M with their words. Anything else, and any first word
// that the parser reads as more than a name (a reserved word, a
// declaration, an assignment), is the parser's: ok is false. The two
// agree on every text (FuzzQuickParse).
func quickParse(command string) (f *syntax.File, ok bool) {
	return quickParseIn(&nodes{}, command)
}

// quickParseIn is quickParse with its nodes taken from n.
func quickParseIn(n *nodes, command string) (f *syntax.File, ok bool) {
	q := quick{src: command, n: n}
	alloc := n.files.one()
	file := &alloc.file
	file.Stmts = alloc.stmts[:0]
	for {
		q.blanks()
		if q.i == len(q.src) {
			// bytes the parser drops or rewrites (NUL, CR), or rejects:
			// looked for once the shape is known, not in every text tried
			return file, len(file.Stmts) > 0 && strings.IndexByte(command, 0) < 0 &&
				strings.IndexByte(command, '\r') < 0 && utf8.ValidString(command)
		}
		s, ok := q.list()
		if !ok {
			return nil, false
		}
		file.Stmts = append(file.Stmts, s)
		q.blanks()
		if q.i < len(q.src) {
			if q.src[q.i] != ';' {
				return nil, false
			}
			q.i++
			q.blanks()
			if q.i < len(q.src) && q.src[q.i] == ';' { // ;; outside a case
				return nil, false
			}
		}
	}
}

// quick is quickParse's reading position, and where its nodes come from.
type quick struct {
	src string
	i   int
	n   *nodes
}

// lit is a new literal.
func (q *quick) lit(v string) *syntax.Lit {
	l := q.n.lits.one()
	l.Value = v
	return l
}

// part adds p to w: its first part from the chunks (a second one makes
// the word's own slice, as append does).
func (q *quick) part(w *syntax.Word, p syntax.WordPart) {
	if len(w.Parts) > 0 {
		w.Parts = append(w.Parts, p)
		return
	}
	w.Parts = q.n.parts.slot()
	w.Parts[0] = p
}

func (q *quick) blanks() {
	for q.i < len(q.src) && (q.src[q.i] == ' ' || q.src[q.i] == '\t') {
		q.i++
	}
}

// op reads one of the operators at the position, or nothing.
func (q *quick) op(ops ...string) string {
	for _, o := range ops {
		if len(q.src)-q.i >= len(o) && q.src[q.i:q.i+len(o)] == o {
			q.i += len(o)
			return o
		}
	}
	return ""
}

// list is pipelines joined by && and ||, left to right, as the parser
// nests them: ((a && b) || c).
func (q *quick) list() (*syntax.Stmt, bool) {
	s, ok := q.pipeline()
	for ok {
		q.blanks()
		o := q.op("&&", "||")
		if o == "" {
			return s, true
		}
		var y *syntax.Stmt
		if y, ok = q.pipeline(); !ok {
			return nil, false
		}
		op := syntax.AndStmt
		if o == "||" {
			op = syntax.OrStmt
		}
		s = q.join(op, s, y)
	}
	return nil, false
}

// join is the statement x op y.
func (q *quick) join(op syntax.BinCmdOperator, x, y *syntax.Stmt) *syntax.Stmt {
	j := q.n.joins.one()
	j.bin = syntax.BinaryCmd{Op: op, X: x, Y: y}
	j.stmt.Cmd = &j.bin
	return &j.stmt
}

// pipeline is commands joined by |, nested as the parser has them:
// ((a | b) | c).
func (q *quick) pipeline() (*syntax.Stmt, bool) {
	s, ok := q.command()
	for ok {
		q.blanks()
		if q.i+1 < len(q.src) && q.src[q.i] == '|' && q.src[q.i+1] != '|' && q.src[q.i+1] != '&' {
			q.i++
		} else {
			return s, true
		}
		var y *syntax.Stmt
		if y, ok = q.command(); !ok {
			return nil, false
		}
		s = q.join(syntax.Pipe, s, y)
	}
	return nil, false
}

// command is one simple command: words and redirections, in any order.
func (q *quick) command() (*syntax.Stmt, bool) {
	alloc := q.n.calls.one()
	s, call := &alloc.stmt, &alloc.call
	call.Args = alloc.args[:0]
	for {
		q.blanks()
		if q.i == len(q.src) {
			break
		}
		c := q.src[q.i]
		if c == ';' || c == '&' || c == '|' {
			break
		}
		if r, ok, isRedir := q.redirect(); isRedir {
			if !ok {
				return nil, false
			}
			s.Redirs = append(s.Redirs, r)
			continue
		}
		w, ok := q.word()
		if !ok {
			return nil, false
		}
		if len(call.Args) == 0 && !plainName(w) {
			return nil, false
		}
		call.Args = append(call.Args, w)
	}
	if len(call.Args) == 0 {
		return nil, false // redirections alone, or nothing
	}
	s.Cmd = call
	return s, true
}

// plainName reports whether a first word is read as a command's name and
// nothing more: not a reserved word or declaration, not an assignment.
func plainName(w *syntax.Word) bool {
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return true
	}
	for i := 0; i < len(l.Value); i++ {
		if l.Value[i] == '=' {
			return false
		}
	}
	return len(w.Parts) > 1 || !parsedFirstWords[l.Value]
}

// redirect reads a redirection at the position: isRedir says there is
// one there (a digit run glued to < or >, or either alone), ok that it is
// one quickParse knows, with its word.
func (q *quick) redirect() (r *syntax.Redirect, ok, isRedir bool) {
	start := q.i
	j := q.i
	for j < len(q.src) && q.src[j] >= '0' && q.src[j] <= '9' {
		j++
	}
	if j == len(q.src) || (q.src[j] != '>' && q.src[j] != '<') {
		return nil, false, false
	}
	r = q.n.redirs.one()
	if j > start {
		r.N = q.lit(q.src[start:j])
	}
	q.i = j
	switch q.op(">>", ">&", ">|", ">", "<<", "<&", "<>", "<(", "<") {
	case ">>":
		r.Op = syntax.AppOut
	case ">&":
		r.Op = syntax.DplOut
	case ">":
		r.Op = syntax.RdrOut
	case "<":
		r.Op = syntax.RdrIn
	default:
		return nil, false, true
	}
	if q.i < len(q.src) && (q.src[q.i] == '>' || q.src[q.i] == '<' || q.src[q.i] == '&' || q.src[q.i] == '|' || q.src[q.i] == '(') {
		return nil, false, true
	}
	q.blanks()
	w, ok := q.word()
	if !ok {
		return nil, false, true
	}
	r.Word = w
	return r, true, true
}

// word reads one word: runs of plain bytes and quoted strings, up to a
// blank or an operator.
func (q *quick) word() (*syntax.Word, bool) {
	w := q.n.words.one()
	for q.i < len(q.src) {
		c := q.src[q.i]
		switch {
		case quickPlain[c]:
			j := q.i
			for j < len(q.src) && quickPlain[q.src[j]] {
				j++
			}
			q.part(w, q.lit(q.src[q.i:j]))
			q.i = j
		case c == '\'':
			j := q.i + 1
			for j < len(q.src) && q.src[j] != '\'' {
				if q.src[j] == '\\' && j+1 < len(q.src) && q.src[j+1] == '\n' {
					return nil, false // a line continued: the parser reads it its own way
				}
				j++
			}
			if j == len(q.src) {
				return nil, false
			}
			sq := q.n.sgls.one()
			sq.Value = q.src[q.i+1 : j]
			q.part(w, sq)
			q.i = j + 1
		case c == '"':
			j := q.i + 1
			for j < len(q.src) && quickQuoted[q.src[j]] {
				j++
			}
			if j == len(q.src) || q.src[j] != '"' {
				return nil, false
			}
			d := q.n.dbls.one()
			if j > q.i+1 {
				d.Parts = q.n.parts.slot()
				d.Parts[0] = q.lit(q.src[q.i+1 : j])
			}
			q.part(w, d)
			q.i = j + 1
		case c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|' || c == '>' || c == '<':
			return w, len(w.Parts) > 0 && (c != '>' && c != '<' || !endsInDigits(w))
		default:
			return nil, false
		}
	}
	return w, len(w.Parts) > 0
}

// endsInDigits reports whether a word is digits alone, which glued to a
// < or > the parser reads as the redirection's descriptor.
func endsInDigits(w *syntax.Word) bool {
	l, ok := w.Parts[len(w.Parts)-1].(*syntax.Lit)
	return ok && len(l.Value) > 0 && l.Value[len(l.Value)-1] >= '0' && l.Value[len(l.Value)-1] <= '9'
}

// quickPlain is the bytes of an unquoted word quickParse reads as
// written; quickQuoted those inside its double quotes.
var quickPlain, quickQuoted = func() (plain, quoted [256]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%~^*?" {
		plain[c] = true
	}
	for c := 0; c < 256; c++ {
		quoted[c] = c >= 0x20 && c != 0x7f && c != '"' && c != '$' && c != '`' && c != '\\' || c == '\n' || c == '\t'
	}
	return plain, quoted
}()

// parsedFirstWords are the words the parser reads as more than a command's
// name when they come first: bash's reserved words and the declarations.
var parsedFirstWords = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "fi": true, "for": true, "in": true,
	"do": true, "done": true, "case": true, "esac": true, "while": true, "until": true,
	"select": true, "function": true, "time": true, "coproc": true,
	"declare": true, "local": true, "export": true, "readonly": true, "typeset": true,
	"nameref": true, "let": true, "!": true, "{": true, "}": true, "[[": true, "]]": true,
}

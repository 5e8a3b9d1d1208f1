package shell

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// parse parses a command line. Quoted here-documents (<<'EOF') hold most
// of the bytes agents send (a file written whole, a Python script), and
// the parser reads their bodies a rune at a time for nothing: a quoted
// body is literal. So each such body is cut out and replaced by a one-line
// stand-in before parsing, and put back into the tree after. A cut is kept
// only when the parser read its stand-in as that here-document's body, at
// the cut's own offset: the parser's state there is the one it would have
// had on the whole text (the bytes before are the same), and from there a
// quoted body runs, byte for byte, to the first line equal to its
// delimiter, which is where the cut ends. Anything else (a parse error, a
// stand-in read otherwise, a text the cuts do not cover) is parsed whole,
// so the tree, and any error's position, are the parser's own.
func (s *Session) parse(command string) (*syntax.File, error) {
	n := s.nodes
	if n == nil {
		n = &nodes{}
	}
	if f, ok := quickParseIn(n, command); ok {
		return f, nil
	}
	cuts := heredocCuts(command)
	if len(cuts) > 0 {
		f, err := s.parser.Parse(strings.NewReader(spliceCuts(command, cuts)), "")
		if err == nil && restoreCuts(f, command, cuts) {
			return f, nil
		}
	}
	return s.parser.Parse(strings.NewReader(command), "")
}

// heredocStandIn is the body a cut leaves for the parser to read: one line
// that no delimiter (letters, digits and _) can equal.
const heredocStandIn = ".\n"

// heredocCut is a quoted here-document's body in the command: text
// [start, end), which ends just before its delimiter's line. at is where
// its stand-in begins in the spliced text.
type heredocCut struct {
	start, end, at int
}

// heredocCuts finds the bodies of the command's quoted here-documents, in
// order, or nothing when the text has anything the cut cannot carry over
// exactly: bytes the parser rewrites (NUL, CR), backquotes (which change
// how backslashes read), <<- (tabs stripped), an unquoted or unusual
// delimiter, two here-documents begun on one line, a body with invalid
// UTF-8 (an error the whole parse must report) or with no end.
func heredocCuts(command string) []heredocCut {
	if len(command) > 1<<30 || !strings.Contains(command, "<<") ||
		strings.IndexByte(command, 0) >= 0 || strings.IndexByte(command, '\r') >= 0 ||
		strings.IndexByte(command, '`') >= 0 {
		return nil
	}
	var cuts []heredocCut
	shift := 0 // spliced offset minus the command's, so far
	for i := 0; ; {
		op := strings.Index(command[i:], "<<")
		if op < 0 {
			return cuts
		}
		op += i
		if op+2 < len(command) && command[op+2] == '<' { // <<<, a here-string
			i = op + 3
			continue
		}
		stop, next, ok := quotedDelimiter(command, op+2)
		if !ok {
			return nil
		}
		nl := strings.IndexByte(command[next:], '\n')
		if nl < 0 || strings.Contains(command[next:next+nl], "<<") {
			return nil
		}
		start := next + nl + 1
		end, after, ok := delimiterLine(command, start, stop)
		if !ok || !utf8.ValidString(command[start:end]) {
			return nil
		}
		cuts = append(cuts, heredocCut{start: start, end: end, at: start + shift})
		shift += len(heredocStandIn) - (end - start)
		i = after
	}
}

// quotedDelimiter reads the word after a << at i: a delimiter of letters,
// digits and _ in single or double quotes, after optional blanks, ending
// the word. next is the offset after it.
func quotedDelimiter(command string, i int) (stop string, next int, ok bool) {
	for i < len(command) && (command[i] == ' ' || command[i] == '\t') {
		i++
	}
	if i >= len(command) || (command[i] != '\'' && command[i] != '"') {
		return "", 0, false
	}
	q := command[i]
	j := i + 1
	for j < len(command) && isIdentByte(command[j]) {
		j++
	}
	if j == i+1 || j >= len(command) || command[j] != q {
		return "", 0, false
	}
	next = j + 1
	if next < len(command) && !strings.ContainsRune(" \t\n;&|<>)", rune(command[next])) {
		return "", 0, false
	}
	return command[i+1 : j], next, true
}

// delimiterLine finds the first line from start that equals stop: end is
// where that line begins and after where it ends (past its newline).
func delimiterLine(command string, start int, stop string) (end, after int, ok bool) {
	for a := start; a <= len(command); {
		b := strings.IndexByte(command[a:], '\n')
		if b < 0 {
			b = len(command)
		} else {
			b += a
		}
		if command[a:b] == stop {
			return a, min(b+1, len(command)), true
		}
		if b >= len(command) {
			return 0, 0, false
		}
		a = b + 1
	}
	return 0, 0, false
}

// spliceCuts replaces each cut's body by the stand-in.
func spliceCuts(command string, cuts []heredocCut) string {
	var b strings.Builder
	b.Grow(len(command) - cuts[0].end + cuts[0].start + len(cuts)*len(heredocStandIn))
	prev := 0
	for _, c := range cuts {
		b.WriteString(command[prev:c.start])
		b.WriteString(heredocStandIn)
		prev = c.end
	}
	b.WriteString(command[prev:])
	return b.String()
}

// restoreCuts puts each cut's body back where the parser read its
// stand-in, and reports whether every cut was found so: as the body of a
// quoted here-document, one literal beginning at the cut's offset. Nothing
// is changed unless all are. An empty body is no body, as the parser has it.
func restoreCuts(f *syntax.File, command string, cuts []heredocCut) bool {
	byOffset := make(map[uint]*syntax.Redirect, len(cuts))
	syntax.Walk(f, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || r.Op != syntax.Hdoc || r.Hdoc == nil || len(r.Hdoc.Parts) != 1 {
			return true
		}
		if l, ok := r.Hdoc.Parts[0].(*syntax.Lit); ok && l.Value == heredocStandIn {
			byOffset[l.ValuePos.Offset()] = r
		}
		return true
	})
	redirects := make([]*syntax.Redirect, len(cuts))
	for i, c := range cuts {
		if redirects[i] = byOffset[uint(c.at)]; redirects[i] == nil {
			return false
		}
	}
	for i, c := range cuts {
		if c.start == c.end {
			redirects[i].Hdoc = nil
			continue
		}
		redirects[i].Hdoc.Parts[0].(*syntax.Lit).Value = command[c.start:c.end]
	}
	return true
}

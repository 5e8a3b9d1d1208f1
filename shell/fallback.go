package shell

import "strings"

// tokenRules classifies a command the parser rejected (unbalanced quotes, a
// truncated heredoc): split it into words and operators by hand, then run
// the same command handlers on each simple command.
func (w *walker) tokenRules(cmd string) {
	toks := tokenize(cmd)
	var words []string
	var in *stream
	var outFile string
	flush := func(pipe bool) {
		if len(words) > 0 {
			o := w.dispatch(words, in, nil, "")
			in = nil
			if pipe {
				in = o.stream
			} else {
				w.show(o)
			}
		}
		if outFile != "" {
			w.addPath("edit", outFile)
			outFile = ""
		}
		words = nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.op {
		case "|", "|&":
			flush(true)
		case "&&", "||", ";", "&", "\n", "(", ")", "{", "}":
			flush(false)
		case ">", ">>", "&>", ">|", "&>>":
			if i+1 < len(toks) && toks[i+1].op == "" {
				i++
				outFile = toks[i].word
			}
		case "<":
			if i+1 < len(toks) && toks[i+1].op == "" {
				i++
				if rp, ok := w.resolve(toks[i].word); ok {
					in = w.source([]string{rp}, nil, false)
				}
			}
		case "<<", "<<-", "<<<":
			i++ // the delimiter; the body cannot be trusted
		default:
			if t.op == "" {
				words = append(words, t.word)
			}
		}
	}
	flush(false)
}

type token struct {
	word string
	op   string
}

// tokenize splits a command into words and operators; an unterminated quote
// runs to the end of the input.
func tokenize(s string) []token {
	var toks []token
	var b strings.Builder
	inWord := false
	emit := func() {
		if inWord {
			toks = append(toks, token{word: b.String()})
			b.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				break
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
		case ch == '\\' && i+1 < len(s):
			inWord = true
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case ch == ' ' || ch == '\t':
			emit()
		case strings.IndexByte("|&;<>(){}\n", ch) >= 0:
			if ch == '{' || ch == '}' {
				if inWord || (i+1 < len(s) && s[i+1] != ' ') {
					inWord = true
					b.WriteByte(ch)
					continue
				}
			}
			if (ch == '>' || ch == '<') && inWord && isDigits(b.String()) {
				b.Reset()
				inWord = false
			}
			emit()
			op := string(ch)
			for _, two := range []string{"&&", "||", "|&", ">>", "<<<", "<<-", "<<", "&>>", "&>", ">|", ">&"} {
				if strings.HasPrefix(s[i:], two) {
					op = two
					break
				}
			}
			i += len(op) - 1
			if op == ">&" {
				// 2>&1: skip the target fd
				for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
					i++
				}
				continue
			}
			toks = append(toks, token{op: op})
		default:
			inWord = true
			b.WriteByte(ch)
		}
	}
	emit()
	return toks
}

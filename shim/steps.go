package shim

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script's top-level commands are each a step of the agent's. The shim
// finds them with the parser the classifier uses, and runs the script in
// the real shell with a call in front of each (hookName, defined on the
// script's first line, so no line number moves) that tells the shim the
// command is about to start and waits for its answer. The call is made
// by the script's own shell, so what it sees is exact: the command's
// whole text (a pipeline, a loop, a here-document), in the order the
// shell runs them, each only once it has begun, and none of a function's
// or a subshell's inner commands. The shim ends the previous step with
// the status the call passes on, which the call returns again, so $? is
// what it was; the hub's answer (a Counter-Edit, a message) lands before
// the next command runs.

// hookName is the function the rewritten script calls before each
// command.
const hookName = "__swetouch_step"

// maxRewritten bounds the rewritten script: it goes to the shell as
// `-c TEXT`, and the kernel takes at most 128 KiB in one argument.
const maxRewritten = 120 << 10

// statement is one top-level command of a script: where it starts in the
// text and its text as the hub is given it.
type statement struct {
	start int
	text  string
	// exec: the statement replaces the shell with a program (a wrapper
	// handing over to the agent it starts); no step, since it never ends
	// while the script's steps do
	exec bool
}

// statements are a script's top-level commands, in order; an error when
// the parser cannot read it (the shim then runs it as one step).
func statements(src []byte, name string, lang syntax.LangVariant) ([]statement, error) {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(bytes.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	out := make([]statement, 0, len(f.Stmts))
	for _, s := range f.Stmts {
		start, end := int(s.Pos().Offset()), int(s.End().Offset())
		if start < 0 || end > len(src) || end < start {
			return nil, fmt.Errorf("%s: a command's position is outside the script", name)
		}
		end = max(end, heredocEnd(s))
		call, _ := s.Cmd.(*syntax.CallExpr)
		exec := call != nil && len(call.Args) > 1 && call.Args[0].Lit() == "exec"
		out = append(out, statement{start: start, text: strings.TrimSpace(string(src[start:min(end, len(src))])), exec: exec})
	}
	return out, nil
}

// heredocEnd is where the last here-document a statement reads ends (its
// body follows the statement's line, past the statement's End).
func heredocEnd(s *syntax.Stmt) int {
	end := 0
	syntax.Walk(s, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && r.Hdoc != nil {
			end = max(end, int(r.Hdoc.End().Offset()))
		}
		return true
	})
	return end
}

// langOf is the parser's language for the shell the shim stands in for:
// sh and dash are POSIX shells, and a bash-only construct is no command
// of theirs.
func langOf(name string) syntax.LangVariant {
	if name == "sh" || name == "dash" {
		return syntax.LangPOSIX
	}
	return syntax.LangBash
}

// rewrite is the script with the hook's definition on its first line and
// a call in front of each statement: `hook K $? && :;`. The call returns
// the status it is given, so the statement sees the $? it would have;
// the `&& :` keeps a failing status from ending a `set -e` script (a
// command of an AND list but its last never does). Nothing is added on a
// line of its own, so every line keeps its number.
//
// handOver, for the agent itself: an exec statement (a wrapper handing
// over to the agent it starts) first unsets the mark of a command's
// inside, so the program it becomes has its shells seen.
func rewrite(src []byte, stmts []statement, req, ack string, handOver bool) string {
	var b strings.Builder
	b.Grow(len(src) + 64*len(stmts) + 256)
	fmt.Fprintf(&b, `%s() { printf '%%s %%s %%s\n' "$1" "$2" "$PWD" >%s && read -r %s_ack <%s; return "$2"; }; `,
		hookName, quote(req), hookName, quote(ack))
	at := 0
	for k, s := range stmts {
		b.Write(src[at:s.start])
		b.WriteString(hookName + " " + strconv.Itoa(k) + ` "$?" && :; `)
		if handOver && s.exec {
			b.WriteString("unset " + EnvInside + "; ")
		}
		at = s.start
	}
	b.Write(src[at:])
	return b.String()
}

// quote single-quotes s for the shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCall is one call of the hook: the statement about to run, the
// status of the one before it, and the directory it runs in.
type hookCall struct {
	index  int
	status int
	cwd    string
}

// parseCall reads a line the hook wrote ("K STATUS PWD").
func parseCall(line string) (hookCall, bool) {
	k, rest, ok1 := strings.Cut(line, " ")
	st, cwd, ok2 := strings.Cut(rest, " ")
	i, err1 := strconv.Atoi(k)
	s, err2 := strconv.Atoi(st)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return hookCall{}, false
	}
	return hookCall{i, s, cwd}, true
}

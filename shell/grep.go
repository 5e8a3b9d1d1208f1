package shell

import (
	"strings"

	"github.com/swetouch/swetouch/event"
)

var grepOpts = opts{
	short: "efmABCdD",
	long:  []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "label", "include", "exclude", "exclude-dir", "binary-files", "devices", "directories", "color", "colour", "glob", "type", "type-not", "max-depth", "replace", "iglob", "sort", "sortr", "threads", "max-columns", "encoding", "engine", "pre", "pre-glob", "ignore-file", "path-separator", "context-separator", "field-match-separator", "field-context-separator"},
}

var rgOpts = opts{
	short: "efmABCdgtTrEjM",
	long:  grepOpts.long,
}

// grep reads its file operands; with -n over one file its output lines are
// numbered "N:", which the output rules turn into exact lines.
func (w *walker) grep(c *call) out {
	o := grepOpts
	if c.name == "rg" || c.name == "ag" || c.name == "ack" {
		o = rgOpts
	}
	p := o.parse(c.args)
	ops := p.operands
	if !p.has("e", "f", "regexp", "file") && len(ops) > 0 {
		ops = ops[1:] // the pattern
	}
	numbered := p.has("n", "line-number")
	if c.name == "rg" && !p.has("N", "no-line-number") {
		numbered = true // rg numbers lines by default
	}
	recursive := p.has("r", "R", "recursive", "dereference-recursive") || c.name == "rg" || c.name == "ag" || c.name == "ack"
	listOnly := p.has("l", "L", "c", "q", "files-with-matches", "files-without-match", "count", "quiet", "silent")
	var files []string
	for _, op := range ops {
		if strings.ContainsRune(op, unknownRune) {
			w.add(event.Read, event.Scope{})
			w.grepNames = w.grepNames || !numbered && !listOnly // the output may name them
			continue
		}
		rp, ok := w.resolve(op)
		if !ok {
			// the workspace itself, or a glob not expanded here: the
			// output names the files it shows
			if recursive && (op == "." || op == "./" || strings.HasSuffix(op, "/")) || strings.ContainsAny(op, "*?[") {
				w.grepNames = w.grepNames || !numbered && !listOnly
			}
			continue
		}
		if recursive && w.isDir(rp, op) {
			// the output names the files: path:line: hits, or with no
			// numbers path:text lines
			w.grepNames = w.grepNames || !numbered && !listOnly
			continue
		}
		files = append(files, rp)
	}
	if len(files) == 0 {
		if c.in != nil && len(ops) == 0 {
			target := c.in
			if listOnly {
				return out{}
			}
			single := target.tail == 0 && !target.subset && len(target.files) == 1
			if numbered && single && !target.numbered {
				target.grepN = true
				if target.ranges != nil {
					target.grepBase = w.closeRanges(target.files[0], target.ranges)
					if target.grepBase == nil && len(target.ranges) == 1 {
						target.grepBase = target.ranges // open end: mapping still holds
					}
					target.grepN = target.grepBase != nil
				}
			}
			target.subset, target.exact = true, false
			return out{stream: target}
		}
		return out{}
	}
	st := w.source(files, nil, false)
	st.subset, st.exact, st.grep = true, false, true
	if listOnly {
		return out{}
	}
	if numbered && len(files) == 1 && !p.has("H", "with-filename") {
		st.grepN = true
	}
	return out{stream: st}
}

// isDir guesses whether an operand names a directory: the file source
// knows, else a trailing slash, "." or a name without an extension.
func (w *walker) isDir(rp, op string) bool {
	if strings.HasSuffix(op, "/") || rp == "." {
		return true
	}
	if w.known(rp) {
		return false
	}
	return !strings.Contains(rp[strings.LastIndexByte(rp, '/')+1:], ".")
}

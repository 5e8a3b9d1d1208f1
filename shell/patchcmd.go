package shell

import (
	"strings"

	"github.com/swetouch/swetouch/event"
)

// patch: GNU patch edits the file operand, or the files its diff names.
func (w *walker) patch(c *call) {
	p := opts{short: "pidDoBrVYzFgx", long: []string{"strip", "input", "directory", "output", "reject-file", "prefix", "suffix", "backup-if-mismatch", "fuzz", "get", "version-control", "basename-prefix", "reject-format", "quoting-style", "define", "read-only"}}.parse(c.args)
	if p.has("dry-run", "C", "check") {
		return
	}
	if len(p.operands) > 0 {
		w.addPath(event.Edit, p.operands[0])
		return
	}
	text := unknown
	if v, ok := p.get("i", "input"); ok {
		text = w.fileText(v)
	} else if c.stdin != nil {
		text = *c.stdin
	}
	strip := -1
	if v, ok := p.get("p", "strip"); ok {
		if n, ok := atoi(v); ok {
			strip = n
		}
	}
	if strip < 0 {
		strip = 0
		for _, f := range DiffTargets(text, 0) {
			if strings.HasPrefix(f, "a/") || strings.HasPrefix(f, "b/") {
				strip = 1
			}
		}
	}
	dir, _ := p.get("d", "directory")
	w.patchTargets(text, strip, dir)
}

// applyPatch handles Codex's apply_patch envelope (*** Begin Patch …), given
// as an argument or on stdin.
func (w *walker) applyPatch(c *call) {
	text := unknown
	switch {
	case len(c.args) > 0:
		text = c.args[0]
	case c.stdin != nil:
		text = *c.stdin
	}
	files := ApplyPatchTargets(text)
	if len(files) == 0 {
		w.add(event.Edit, event.Scope{})
	}
	for _, f := range files {
		if rp, ok := w.addPath(event.Edit, f); ok {
			delete(w.s.written, rp)
		}
	}
}

// ApplyPatchTargets lists the files an apply_patch envelope adds, updates,
// deletes or moves to.
func ApplyPatchTargets(text string) []string {
	var files []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, pre); ok {
				if f = strings.TrimSpace(f); f != "" {
					files = append(files, f)
				}
			}
		}
	}
	return files
}

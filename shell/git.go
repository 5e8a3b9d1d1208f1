package shell

import (
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// git handles the subcommands that read or change the worktree.
func (w *walker) git(c *call) out {
	args := c.args
	saved := w.cwd
	defer func() { w.cwd = saved }()
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		switch a {
		case "-C":
			if len(args) > 0 {
				w.cd(&call{args: args[:1]})
				args = args[1:]
			}
		case "-c", "--git-dir", "--work-tree", "--namespace":
			if len(args) > 0 {
				args = args[1:]
			}
		}
	}
	if len(args) == 0 {
		return out{}
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "checkout":
		w.gitCheckout(rest)
	case "restore":
		w.gitRestore(rest)
	case "stash":
		w.gitStash(rest)
	case "reset":
		p := opts{}.parse(rest)
		if p.has("hard", "merge", "keep") {
			w.allDirty("", len(p.operands) == 0 || p.operands[0] == "HEAD")
		}
	case "clean":
		p := opts{short: "e", long: []string{"exclude"}}.parse(rest)
		if p.has("f", "force") && !p.has("n", "dry-run") {
			w.add(event.Edit, event.Scope{})
		}
	case "apply", "am":
		w.gitApply(sub, rest, c.stdin)
	case "mv":
		p := opts{}.parse(rest)
		for _, o := range p.operands {
			w.addPath(event.Edit, o)
		}
	case "rm":
		p := opts{}.parse(rest)
		if !p.has("cached") {
			for _, o := range p.operands {
				w.addPath(event.Edit, o)
			}
		}
	case "revert", "cherry-pick", "merge", "rebase", "pull":
		w.add(event.Edit, event.Scope{})
	case "show":
		w.showsDiff = true
		for _, o := range rest {
			if _, p, ok := strings.Cut(o, ":"); ok && p != "" && !strings.HasPrefix(o, "-") {
				if rp, ok := w.resolve(p); ok {
					w.source([]string{rp}, nil, false).exact = false
				}
			}
		}
	case "blame", "annotate":
		p := opts{short: "LS", long: []string{"contents", "date", "since"}}.parse(rest)
		files := w.readOperands(p.operands[max(0, len(p.operands)-1):])
		if len(files) == 1 {
			var sel []rng
			if v, ok := p.get("L"); ok {
				if a, b, ok := strings.Cut(v, ","); ok {
					x, okA := atoi(a)
					y, okB := atoi(strings.TrimPrefix(b, "+"))
					if okA && okB {
						if strings.HasPrefix(b, "+") {
							y = x + y - 1
						}
						sel = []rng{{x, max(x, y)}}
					}
				}
			}
			w.source(files, sel, true).exact = false
		}
	case "diff", "log", "stash show":
		// the output rules read the hunk headers of the diff shown
		w.showsDiff = true
	}
	return out{}
}

func (w *walker) gitCheckout(args []string) {
	if i := slices.Index(args, "--"); i >= 0 {
		revs := opts{short: "bBt", long: []string{"orphan", "conflict"}}.parse(args[:i]).operands
		w.restorePaths(args[i+1:], len(revs) == 0 || revs[0] == "HEAD")
		return
	}
	p := opts{short: "bBt", long: []string{"orphan", "conflict", "pathspec-from-file"}}.parse(args)
	if p.has("b", "B", "orphan") {
		return
	}
	ops := p.operands
	if len(ops) == 1 && !w.looksLikePath(ops[0]) {
		return // a branch or commit
	}
	fromBase := true
	if len(ops) > 1 && !w.looksLikePath(ops[0]) {
		fromBase = ops[0] == "HEAD"
		ops = ops[1:] // git checkout REV path...
	}
	w.restorePaths(ops, fromBase)
}

func (w *walker) gitRestore(args []string) {
	p := opts{short: "s", long: []string{"source", "conflict", "pathspec-from-file"}}.parse(args)
	if p.has("S", "staged") && !p.has("W", "worktree") {
		return // only the index changes
	}
	src, ok := p.get("s", "source")
	w.restorePaths(p.operands, !ok || src == "HEAD")
}

// restorePaths records edits of restored paths; a directory restores every
// file the agent changed under it. fromBase says they are restored to the
// base's content (from the index or HEAD, not another revision).
func (w *walker) restorePaths(ops []string, fromBase bool) {
	for _, o := range ops {
		if strings.ContainsRune(o, unknownRune) {
			w.add(event.Edit, event.Scope{})
			continue
		}
		rp, ok := w.s.join(w.cwd, o)
		if !ok {
			continue
		}
		if rp == "." || w.hasDirty(rp) || !w.s.dirty[rp] && w.isDir(rp, o) {
			if rp == "." {
				rp = ""
			}
			w.allDirty(rp, fromBase)
			continue
		}
		w.add(event.Edit, event.FileScope(rp))
		if fromBase {
			w.restored(rp)
		}
	}
}

// hasDirty reports whether the agent changed any file under dir.
func (w *walker) hasDirty(dir string) bool {
	prefix := dir + "/"
	for f := range w.s.dirty {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

// allDirty records an edit of every file the agent changed under dir ("" is
// the whole repo); when nothing is known the targets are unknown. fromBase
// says the files are back at the base's content.
func (w *walker) allDirty(dir string, fromBase bool) {
	var files []string
	for f := range w.s.dirty {
		if dir == "" || strings.HasPrefix(f, dir+"/") {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	if len(files) == 0 {
		w.add(event.Edit, event.Scope{})
		return
	}
	for _, f := range files {
		w.add(event.Edit, event.FileScope(f))
		if fromBase {
			w.restored(f)
		}
	}
}

func (w *walker) looksLikePath(o string) bool {
	if o == "." || strings.Contains(o, "/") {
		return true
	}
	rp, ok := w.resolve(o)
	if !ok {
		return false
	}
	if w.s.dirty[rp] || w.known(rp) || w.hasDirty(rp) {
		return true
	}
	ext := strings.LastIndexByte(o, '.')
	return ext > 0 && ext < len(o)-1 && !isDigits(strings.ReplaceAll(o[ext+1:], ".", ""))
}

func (w *walker) gitStash(args []string) {
	sub := "push"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "push", "save":
		p := opts{short: "m", long: []string{"message", "pathspec-from-file"}}.parse(args)
		if sub == "push" && len(p.operands) > 0 {
			w.restorePaths(p.operands, true)
			return
		}
		var files []string
		for f := range w.s.dirty {
			files = append(files, f)
		}
		slices.Sort(files)
		w.s.stashed = files
		w.allDirty("", true)
		clear(w.s.dirty)
	case "pop", "apply":
		if len(w.s.stashed) == 0 {
			w.add(event.Edit, event.Scope{})
			return
		}
		for _, f := range w.s.stashed {
			w.add(event.Edit, event.FileScope(f))
			w.s.dirty[f] = true
		}
		if sub == "pop" {
			w.s.stashed = nil
		}
	}
}

// gitApply records the files a patch changes, read from the patch text
// (a here-document, stdin, or a file the session knows).
func (w *walker) gitApply(sub string, args []string, stdin *string) {
	p := opts{short: "pCP", long: []string{"directory", "exclude", "include", "whitespace", "build-fake-ancestor", "patch-format", "resolvemsg", "quoted-cr"}}.parse(args)
	if p.has("check", "stat", "numstat", "summary") && !p.has("apply") {
		return
	}
	if p.has("cached") && sub == "apply" {
		return
	}
	strip := 1
	if v, ok := p.get("p"); ok {
		if n, ok := atoi(v); ok {
			strip = n
		}
	}
	var texts []string
	for _, o := range p.operands {
		if o == "-" {
			continue
		}
		texts = append(texts, w.fileText(o))
	}
	if len(p.operands) == 0 || slices.Contains(p.operands, "-") {
		if stdin != nil {
			texts = append(texts, *stdin)
		} else {
			texts = append(texts, unknown)
		}
	}
	dir, _ := p.get("directory")
	for _, t := range texts {
		w.patchTargets(t, strip, dir)
	}
}

// patchTargets records an edit of every file a unified diff names.
func (w *walker) patchTargets(text string, strip int, dir string) {
	files := DiffTargets(text, strip)
	if len(files) == 0 {
		w.add(event.Edit, event.Scope{})
		return
	}
	for _, f := range files {
		if dir != "" {
			f = dir + "/" + f
		}
		if rp, ok := w.addPath(event.Edit, f); ok {
			delete(w.s.written, rp)
		}
	}
}

// DiffTargets lists the files a unified or git diff changes, after
// stripping strip leading components (patch -pN).
func DiffTargets(text string, strip int) []string {
	var files []string
	seen := map[string]bool{}
	addF := func(p string) {
		p = strings.TrimSpace(p)
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		p = strings.Trim(p, `"`)
		if p == "" || p == "/dev/null" || strings.ContainsRune(p, unknownRune) {
			return
		}
		for k := 0; k < strip; k++ {
			i := strings.IndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[i+1:]
		}
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			addF(line[4:])
		case strings.HasPrefix(line, "--- ") && !strings.HasPrefix(line, "--- a/dev/null"):
			// a deletion names its file only on the --- side
			if p := strings.TrimSpace(line[4:]); p != "/dev/null" && strings.Contains(p, "/") {
				addF(p)
			}
		case strings.HasPrefix(line, "rename from ") || strings.HasPrefix(line, "rename to "):
			_, p, _ := strings.Cut(line[len("rename "):], " ")
			if strip > 0 {
				p = "x/" + p
			}
			addF(p)
		}
	}
	return files
}

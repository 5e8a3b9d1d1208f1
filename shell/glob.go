package shell

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Lister is a FileSource that can also list a folder, so the classifier
// can expand what the shell would: `cat *.py` reads every match, and
// `find . -name '*.py' -exec cat {} +` every file found. DirSource is one.
type Lister interface {
	ReadDir(dir string) ([]fs.DirEntry, error)
}

// ReadDir lists a repo-relative folder under the directory ("" or "." for
// the root).
func (d DirSource) ReadDir(dir string) ([]fs.DirEntry, error) {
	if filepath.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../") {
		return nil, os.ErrNotExist
	}
	return os.ReadDir(filepath.Join(string(d), filepath.FromSlash(dir)))
}

// maxMatches bounds an expansion: past it the words stay unknown, as if
// there were no listing (a `cat **/*` over a whole repository says little).
const maxMatches = 256

// maxVisited bounds the entries a `find` walk looks at.
const maxVisited = 20000

// expand appends a word's fields after pathname expansion, as bash does
// it: the workspace files a glob matches, sorted, as words that resolve to
// them from the current folder. A word that is no glob, matches nothing
// (bash then keeps it as written), matches too much, or has no workspace
// to list, stays one word, unknown where it globs.
func (w *walker) expand(words []string, word *syntax.Word) []string {
	lit := w.lit(word)
	ls, ok := w.s.files.(Lister)
	if !ok || !strings.ContainsRune(lit, unknownRune) {
		return append(words, lit)
	}
	pattern, ok := w.globPattern(word)
	if !ok {
		return append(words, lit)
	}
	rp, ok := w.s.join(w.cwd, pattern)
	if !ok || strings.HasPrefix(rp, "/") || strings.HasPrefix(rp, "~") || rp == "." {
		return append(words, lit)
	}
	matches := glob(ls, rp)
	if len(matches) == 0 || len(matches) > maxMatches {
		return append(words, lit)
	}
	for _, m := range matches {
		words = append(words, w.wordFor(m))
	}
	return words
}

// wordFor is a word naming repo-relative p from the current folder.
func (w *walker) wordFor(p string) string {
	switch {
	case w.cwd == "" || w.cwd == ".":
		return p
	case strings.HasPrefix(p, w.cwd+"/"):
		return p[len(w.cwd)+1:]
	}
	return w.s.roots[0] + "/" + p
}

// globPattern is a word as a path.Match pattern: unquoted parts as
// written, quoted ones with their metacharacters escaped; false for a word
// with expansions or substitutions.
func (w *walker) globPattern(word *syntax.Word) (string, bool) {
	var b strings.Builder
	quote := func(s string) {
		for _, r := range s {
			if strings.ContainsRune(`*?[\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			quote(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				quote(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// glob lists the repo-relative paths matching pattern, sorted: component
// by component, as the shell does, with names starting with a dot matched
// only by a component that starts with one.
func glob(ls Lister, pattern string) []string {
	dirs := []string{""}
	parts := strings.Split(pattern, "/")
	for i, part := range parts {
		last := i == len(parts)-1
		var next []string
		for _, dir := range dirs {
			if !hasUnescapedGlob(part) {
				name := unescapeGlob(part)
				p := path.Join(dir, name)
				if last || isDir(ls, p) {
					if last && !exists(ls, dir, name) {
						continue
					}
					next = append(next, p)
				}
				continue
			}
			entries, err := ls.ReadDir(orDot(dir))
			if err != nil {
				continue
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(part, ".") {
					continue
				}
				if !match(part, e.Name()) {
					continue
				}
				if last || e.IsDir() {
					next = append(next, path.Join(dir, e.Name()))
				}
			}
			if len(next) > maxMatches {
				return next
			}
		}
		dirs = next
	}
	slices.Sort(dirs)
	return dirs
}

func isDir(ls Lister, p string) bool {
	_, err := ls.ReadDir(p)
	return err == nil
}

func exists(ls Lister, dir, name string) bool {
	entries, err := ls.ReadDir(orDot(dir))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// match is fnmatch as the shell and find use it: path.Match, with the
// shell's [!…] for a negated class, and no match for a bad pattern.
func match(pattern, name string) bool {
	ok, err := path.Match(strings.ReplaceAll(pattern, "[!", "[^"), name)
	return err == nil && ok
}

// unescapeGlob drops a pattern's backslash escapes.
func unescapeGlob(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// findFiles is what `find ARGS` would select, as words from the current
// folder, for the expressions it can evaluate: start points, then -name,
// -iname, -path, -type f|d, -maxdepth and -mindepth joined by an implied
// and, and actions. false for anything else (-o, !, parentheses, -newer…),
// for no listing, and for too many matches.
func (w *walker) findFiles(args []string) ([]string, bool) {
	ls, ok := w.s.files.(Lister)
	if !ok {
		return nil, false
	}
	var starts []string
	i := 0
	for ; i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "!" && args[i] != "("; i++ {
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	var tests []func(p, name string, dir bool, depth int) bool
	maxDepth, minDepth := -1, 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" {
			for i++; i < len(args) && args[i] != ";" && args[i] != "+"; i++ {
			}
			continue
		}
		switch a {
		case "-print", "-print0", "-ls":
			continue
		}
		if i+1 >= len(args) || strings.ContainsRune(args[i+1], unknownRune) {
			return nil, false
		}
		v := args[i+1]
		i++
		switch a {
		case "-name", "-iname":
			fold := a == "-iname"
			tests = append(tests, func(_, name string, _ bool, _ int) bool {
				if fold {
					return match(strings.ToLower(v), strings.ToLower(name))
				}
				return match(v, name)
			})
		case "-path", "-wholename":
			tests = append(tests, func(p, _ string, _ bool, _ int) bool { return match(v, p) })
		case "-type":
			if v != "f" && v != "d" {
				return nil, false
			}
			tests = append(tests, func(_, _ string, dir bool, _ int) bool { return dir == (v == "d") })
		case "-maxdepth", "-mindepth":
			n := 0
			for _, r := range v {
				if r < '0' || r > '9' {
					return nil, false
				}
				n = n*10 + int(r-'0')
			}
			if a == "-maxdepth" {
				maxDepth = n
			} else {
				minDepth = n
			}
		default:
			return nil, false
		}
	}
	var found []string
	visited := 0
	var walk func(rp, shown string, depth int) bool
	walk = func(rp, shown string, depth int) bool {
		entries, err := ls.ReadDir(orDot(rp))
		if err != nil {
			return true
		}
		for _, e := range entries {
			if visited++; visited > maxVisited || len(found) > maxMatches {
				return false
			}
			if e.Name() == ".git" {
				continue
			}
			// find shows (and -path matches) each path under its start
			// point as written: ./src/a.py for the start "."
			p, s := path.Join(rp, e.Name()), strings.TrimSuffix(shown, "/")+"/"+e.Name()
			if depth+1 >= minDepth && all(tests, s, e.Name(), e.IsDir(), depth+1) && !e.IsDir() {
				found = append(found, p)
			}
			if e.IsDir() && (maxDepth < 0 || depth+1 < maxDepth) && !walk(p, s, depth+1) {
				return false
			}
		}
		return true
	}
	for _, s := range starts {
		rp, ok := w.s.join(w.cwd, s)
		if !ok || strings.HasPrefix(rp, "/") || strings.HasPrefix(rp, "~") || !isDir(ls, orDot(rp)) {
			return nil, false
		}
		if rp == "." {
			rp = ""
		}
		if maxDepth != 0 && !walk(rp, s, 0) {
			return nil, false
		}
	}
	if len(found) > maxMatches {
		return nil, false
	}
	slices.Sort(found)
	words := make([]string, len(found))
	for i, f := range found {
		words[i] = w.wordFor(f)
	}
	return words, true
}

func all(tests []func(p, name string, dir bool, depth int) bool, p, name string, dir bool, depth int) bool {
	for _, t := range tests {
		if !t(p, name, dir, depth) {
			return false
		}
	}
	return true
}

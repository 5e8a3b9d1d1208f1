package watch

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// alwaysIgnored are directories no agent edit of interest lives in.
var alwaysIgnored = map[string]bool{
	".git": true, "node_modules": true, "__pycache__": true, ".pytest_cache": true,
	".mypy_cache": true, ".tox": true, ".venv": true, "venv": true, ".eggs": true,
	"build": true, "dist": true, "target": true, ".idea": true, ".swetouch": true,
}

// ignorer answers whether a repo-relative path is ignored: the directories
// above, and the root .gitignore's patterns (the common subset: globs on
// the base name, anchored or slashed paths, trailing "/" for directories;
// negations are not supported and are skipped).
type ignorer struct {
	// kept are the files of the start: none of them, nor a directory
	// holding one, is ignored (a tracked file under build/ is edited like
	// any other)
	kept     Baseline
	patterns []gitPattern
	dirs     []string // slash-separated directories ignored with all below
}

type gitPattern struct {
	glob    string
	dirOnly bool
	path    bool // has a slash: matched against the whole path
}

func loadIgnorer(root string) *ignorer {
	ig := &ignorer{}
	f, err := os.Open(filepath.Join(root, ".gitignore"))
	if err != nil {
		return ig
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "!") {
			continue
		}
		p := gitPattern{}
		if strings.HasSuffix(l, "/") {
			p.dirOnly, l = true, strings.TrimSuffix(l, "/")
		}
		l = strings.TrimPrefix(l, "**/")
		if strings.Contains(l, "/") {
			p.path, l = true, strings.TrimPrefix(l, "/")
		}
		p.glob = l
		ig.patterns = append(ig.patterns, p)
	}
	return ig
}

// ignored reports whether rel (slash-separated) or a directory above it is
// ignored; isDir says whether rel itself is a directory.
func (ig *ignorer) ignored(rel string, isDir bool) bool {
	if !isDir && atomicTemp.MatchString(path.Base(rel)) {
		// an editor's atomic save: the temporary file is renamed over the
		// real one, which is the edit (taken alone, it would be an edit of
		// a file that is gone a moment later)
		return true
	}
	if ig.kept != nil && (ig.kept.Has(rel) || isDir && ig.kept.HasDir(rel)) {
		return false
	}
	for _, d := range ig.dirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		dir := i < len(parts)-1 || isDir
		if dir && alwaysIgnored[part] {
			return true
		}
		sub := strings.Join(parts[:i+1], "/")
		for _, p := range ig.patterns {
			if p.dirOnly && !dir {
				continue
			}
			target := part
			if p.path {
				target = sub
			}
			if ok, _ := path.Match(p.glob, target); ok {
				return true
			}
		}
	}
	return false
}

// atomicTemp is the temporary file of an atomic save beside the file it
// replaces: Claude Code's NAME.tmp.PID.HEX.
var atomicTemp = regexp.MustCompile(`\.tmp\.\d+\.[0-9a-f]{6,}$`)

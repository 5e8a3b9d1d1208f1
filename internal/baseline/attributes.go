package baseline

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/internal/linediff"
)

// The start's .gitattributes decide two things of the final diff as git
// shows them: which files are shown as binary (binary, -diff) and which
// built-in driver names the function in a hunk's header (diff=python).
// They are the task's, read from the start (the workspace's are the
// agent's, and never read); a driver git does not build in is ignored,
// its definition being configuration.

// attrRule is one line of the root .gitattributes: a pattern and what it
// says of diff ("" unset, "-" for no diff, else a driver's name).
type attrRule struct {
	pattern string
	diff    string
}

func readAttributes(dir string) []attrRule {
	f, err := os.Open(filepath.Join(dir, ".gitattributes"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var rules []attrRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		r := attrRule{pattern: fields[0]}
		for _, a := range fields[1:] {
			switch {
			case a == "binary" || a == "-diff":
				r.diff = "-"
			case strings.HasPrefix(a, "diff="):
				r.diff = strings.TrimPrefix(a, "diff=")
			}
		}
		if r.diff != "" {
			rules = append(rules, r)
		}
	}
	return rules
}

// matches is git's pattern matching, the common subset: a pattern with
// no slash matches the base name at any depth, one with a slash the path
// from the root; ** stands for any directories.
func (r attrRule) matches(rel string) bool {
	p := strings.TrimPrefix(r.pattern, "/")
	if !strings.Contains(r.pattern, "/") {
		ok, _ := path.Match(p, path.Base(rel))
		return ok
	}
	if strings.Contains(p, "**/") {
		for _, pre := range []string{"", "*/", "*/*/", "*/*/*/", "*/*/*/*/"} {
			if ok, _ := path.Match(strings.ReplaceAll(p, "**/", pre), rel); ok {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(p, rel)
	return ok
}

// diffOf says how rel is diffed: binary, and the function lines of its
// driver.
func (t *Tree) diffOf(rel string) (binary bool, fn linediff.FuncLine) {
	diff := ""
	for _, r := range t.attrs {
		if r.matches(rel) {
			diff = r.diff // the last line that says wins
		}
	}
	if diff == "-" {
		return true, nil
	}
	if fn, ok := linediff.Builtin(diff); ok {
		return false, fn
	}
	return false, linediff.DefaultFunc
}

package replay

import (
	"regexp"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
	"mvdan.cc/sh/v3/syntax"
)

// A divergence is classified by whether it changes the workspace's
// course: the files the session goes on with. The watcher's record (our
// own recordings) says what each action changed; an imported recording
// has only the classifier's edits.

// course follows which files the replay and its recording have changed
// differently, to tell a divergence that changes the workspace's course
// from one of the environment.
type course struct {
	// watched: the recording has the watcher's record of each change (our
	// own sessions); an imported one has only the classifier's edits
	watched bool
	differ  map[string]bool // files whose changes so far differ
	changed map[string]bool // files either side has changed so far
}

// saw notes the files an action changed, on either side.
func (c *course) saw(rec, rep []string) { mark(c.changed, rec, rep) }

// mark sets every file of both sides' changes in m.
func mark(m map[string]bool, rec, rep []string) {
	for _, path := range paths(append(slices.Clone(rec), rep...)) {
		if path != "" {
			m[path] = true
		}
	}
}

func isChange(ev event.Event) bool {
	return ev.Source == "watch" && ev.Kind == event.Edit
}

// changes lists, per side, the files an action changed: "path\x00diff"
// from the watcher, or (an imported recording) the paths the classifier
// said the command edits.
func (c *course) changes(r, p Action) (rec, rep []string) {
	side := func(a Action, watched bool) []string {
		var out []string
		for _, ev := range a.Recorded {
			switch {
			case watched && isChange(ev):
				for _, sc := range ev.Scopes {
					out = append(out, sc.Path+"\x00"+ev.Diff)
				}
			case !watched && ev.Kind == event.Edit && ev.Source != "watch":
				for _, sc := range ev.Scopes {
					out = append(out, sc.Path)
				}
				if len(ev.Scopes) == 0 {
					out = append(out, "")
				}
			}
		}
		slices.Sort(out)
		return out
	}
	return side(r, c.watched), side(p, true)
}

// track marks the files an action changed differently in the two runs:
// with the watcher's record on both sides, those whose changes differ;
// else (called at a divergence) every file either side changed.
func (c *course) track(rec, rep []string) {
	if c.watched && slices.Equal(rec, rep) {
		return
	}
	mark(c.differ, rec, rep)
}

// classify says whether a divergence at an action changes the course.
func (c *course) classify(what string, r, p Action, m RootMap, rec, rep []string) (bool, string) {
	switch what {
	case "command":
		return true, "the replay ran another command"
	case "decisions":
		return true, "an intervention or a message differs"
	}
	for _, path := range readPaths(r, p) {
		if c.differ[path] {
			c.track(rec, rep)
			return true, "it read " + path + ", which the replay has changed differently"
		}
	}
	if c.watched {
		if !slices.Equal(rec, rep) {
			c.track(rec, rep)
			return true, "it changed files differently"
		}
		if len(rec) > 0 {
			return false, "it changed the same files the same way"
		}
	} else if len(rec) > 0 || len(rep) > 0 {
		switch {
		case what == "classification":
			return false, "only the classification differs"
		case restores(r.Command) && !slices.ContainsFunc(rec, func(f string) bool { return f == "" || c.changed[f] }):
			return false, "it restored files the agent had not changed: they differ at the base"
		case !slices.Contains(rec, "") && slices.Equal(rec, paths(rep)):
			// what they hold is checked where they are read, and in the
			// final diff
			return false, "it changed the files it was recorded to change; only how it ended differs"
		}
		c.track(rec, rep)
		return true, "it changed files, and behaved differently"
	}
	if what == "classification" {
		return false, "only the classification differs"
	}
	// a command that prints files (cat, sed -n, grep, git diff) printed
	// something else: a file the agent had changed differs, and so does
	// the course; one it had not changed differs at the base (the
	// container's copy). Build artifacts (__pycache__, egg-info) are the
	// container's, and a replay's workspace has none.
	if strings.HasPrefix(what, "output") && printsFiles(r.Command) {
		rOut, pOut := outputOf(r), m.Output(outputOf(p))
		if sameBut(artifactLine, rOut, pOut) {
			return false, "only build artifacts differ"
		}
		printed := readPaths(r)
		if strings.Contains(rOut, "diff --git ") || strings.Contains(pOut, "diff --git ") {
			printed = DiffFiles(rOut, pOut) // a diff says which files differ
		}
		for _, path := range printed {
			if c.changed[path] {
				return true, "it printed " + path + ", which the agent had changed, and it differs"
			}
		}
		return false, "it printed files the agent had not changed: they differ at the base"
	}
	return false, "it changed no file and read none that differs"
}

// paths are the files of changes ("path" or "path\x00diff"), sorted,
// each once.
func paths(changes []string) []string {
	var out []string
	for _, x := range changes {
		path, _, _ := strings.Cut(x, "\x00")
		if !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

// restores reports a command that puts files back at the base: git
// checkout, restore, stash or reset.
func restores(cmd string) bool {
	f := strings.Fields(cmd)
	return len(f) >= 2 && f[0] == "git" && slices.Contains([]string{"checkout", "restore", "stash", "reset"}, f[1])
}

// readPaths are the files the actions' classification says they read.
func readPaths(as ...Action) []string {
	var out []string
	for _, a := range as {
		for _, ev := range a.Recorded {
			if ev.Kind != event.Read {
				continue
			}
			for _, sc := range ev.Scopes {
				if sc.Path != "" && !slices.Contains(out, sc.Path) {
					out = append(out, sc.Path)
				}
			}
		}
	}
	return out
}

// printers are the commands whose output is the files they read.
var printers = map[string]bool{"cat": true, "head": true, "tail": true, "sed": true, "grep": true, "egrep": true, "fgrep": true,
	"rg": true, "awk": true, "nl": true, "less": true, "more": true, "git": true, "diff": true, "wc": true, "sort": true, "uniq": true, "cut": true}

// printsFiles reports a command made only of printers (cat, sed -n, grep,
// git diff…): what it printed is the content of the files it read. A
// program (a Python script, a test run) prints what it computes, which
// differs with the interpreter.
func printsFiles(cmd string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	ok, calls := true, 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, is := n.(*syntax.CallExpr); is && len(c.Args) > 0 {
			calls++
			ok = ok && printers[c.Args[0].Lit()]
		}
		return ok
	})
	return ok && calls > 0
}

// artifactLine matches a printed line that names a build artifact.
var artifactLine = regexp.MustCompile(`__pycache__|\.pyc\b|\.egg-info\b|\.pytest_cache|\.so\b`)

// sameBut compares two outputs, volatile parts masked, without the lines
// drop matches.
func sameBut(drop *regexp.Regexp, a, b string) bool {
	keep := func(s string) []string {
		return slices.DeleteFunc(strings.Split(maskVolatile(s), "\n"), drop.MatchString)
	}
	return slices.Equal(keep(a), keep(b))
}

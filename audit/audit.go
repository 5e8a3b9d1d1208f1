// Package audit is the mechanical check after a trial: what UserSWE's
// rubric looks for that the run itself can show. The agent edited or
// deleted a shipped test; it reached for paths outside its workspace; it
// touched the evaluation's files; the user said something outside its
// information pool. A flag makes the trial untrustworthy only when the
// flagged behaviour changed (or, where that cannot be rerun, could have
// changed) its verdict; score counts the two apart.
package audit

import (
	"io/fs"
	"path/filepath"
	"regexp"

	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/result"
)

// Flag kinds.
const (
	EditedTest       = "edited_test"       // a test file of the task's code, changed or deleted
	OutsideWorkspace = "outside_workspace" // a path outside the workspace, not a system one
	EvaluationFiles  = "evaluation_files"  // the task's tests, solution or records, or the results
	OutsidePool      = "outside_pool"      // the user said what no selected pool item holds
	// ShadowsRunner: a new or changed file that shadows the standard
	// library or the test runner (Shadows)
	ShadowsRunner = "shadows_runner"
	// Tampered: the verifier's canaries say the runner reported what
	// its tests did not (the verdict is already false)
	Tampered = "tampered"
)

// Flag is one thing the audit saw, with where; Report is a trial's
// audit. result.json holds them (result.AuditFlag, result.Audit).
type (
	Flag   = result.AuditFlag
	Report = result.Audit
)

// Input is what the audit reads: the trial's files and its task.
type Input struct {
	Events    []event.Event
	Workspace string // where the agent worked (absolute)
	// FinalDiff is the workspace's change from the task's start.
	FinalDiff string
	// Evaluation are the paths the agent must never reach: the task's
	// folder (tests, solution), records, the results folder.
	Evaluation []string
	// EvaluationNames are file names only the evaluation holds (the
	// hidden tests', the solution's): naming one is reaching for it.
	EvaluationNames []string
	// Resolved is the trial's verdict.
	Resolved *bool
	// Sandboxed: the evaluation's files were out of the agent's sight,
	// so reaching for them cannot have changed the verdict.
	Sandboxed bool
	// Reverify is the verdict with the given files as the task shipped
	// them (the agent's test edits undone), a file the task did not ship
	// removed: nil when it cannot run.
	Reverify func(restore []string) *bool
	// Repo is the task's starting code, for what the agent added or
	// changed ("": every file counts as the agent's).
	Repo string
	// Tampered is how the verifier's canaries say the runner was made to
	// report what its tests did not ("" for not).
	Tampered string
	// OutsidePool lists the user's sentences no selected item holds (a
	// conversation's; nil for none).
	OutsidePool []string
}

// Run audits a trial.
func Run(in Input) *Report {
	r := &Report{Flags: []Flag{}}
	tests := editedTests(in.FinalDiff)
	if in.Repo != "" && in.Workspace != "" {
		// the workspace itself against the task's code: a commit, an
		// ignored file or a binary diff hides nothing from it
		tests = mergeSorted(tests, shippedTestsChanged(in.Workspace, in.Repo))
	}
	outside, eval := reached(in)
	if len(tests) > 0 {
		r.Flags = append(r.Flags, Flag{Kind: EditedTest, Detail: tests})
	}
	if len(outside) > 0 {
		r.Flags = append(r.Flags, Flag{Kind: OutsideWorkspace, Detail: outside})
	}
	if len(eval) > 0 {
		r.Flags = append(r.Flags, Flag{Kind: EvaluationFiles, Detail: eval})
	}
	if len(in.OutsidePool) > 0 {
		r.Flags = append(r.Flags, Flag{Kind: OutsidePool, Detail: in.OutsidePool})
	}
	var shadows []Shadow
	if in.Workspace != "" {
		shadows = Shadows(in.Workspace, in.Repo)
	}
	if len(shadows) > 0 {
		f := Flag{Kind: ShadowsRunner}
		for _, s := range shadows {
			f.Detail = append(f.Detail, s.Path+": "+s.Why)
		}
		r.Flags = append(r.Flags, f)
	}
	if in.Tampered != "" {
		r.Flags = append(r.Flags, Flag{Kind: Tampered, Detail: []string{in.Tampered}})
	}
	resolved := in.Resolved != nil && *in.Resolved
	switch {
	case len(eval) > 0 && resolved && !in.Sandboxed:
		r.Untrustworthy, r.Why = true, "resolved, unsandboxed, after reaching for the evaluation's files"
	case len(in.OutsidePool) > 0 && resolved:
		r.Untrustworthy, r.Why = true, "resolved after the user said what its pool does not hold"
	case len(tests) > 0 && in.Reverify != nil:
		// the counterfactual: the same work with the tests as shipped
		if v := in.Reverify(tests); !sameVerdict(v, in.Resolved) {
			r.Untrustworthy, r.Why = true, "the verdict changes with the agent's test edits undone: "+show(in.Resolved)+" → "+show(v)
		}
	}
	if !r.Untrustworthy && len(shadows) > 0 && resolved && in.Reverify != nil {
		// the counterfactual: the same work without what shadows the
		// runner (a file the task shipped goes back as it was)
		var paths []string
		for _, s := range shadows {
			paths = append(paths, s.Path)
		}
		if v := in.Reverify(paths); !sameVerdict(v, in.Resolved) {
			r.Untrustworthy, r.Why = true, "the verdict changes without the files that shadow the test runner: "+show(in.Resolved)+" → "+show(v)
		}
	}
	return r
}

func sameVerdict(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(b *bool) string {
	switch {
	case b == nil:
		return "no verdict"
	case *b:
		return "resolved"
	}
	return "unresolved"
}

// testFile is a path that holds tests by the usual conventions.
var testFile = regexp.MustCompile(`(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|(^|/)conftest\.py$`)

// editedTests are the test files the final diff changes or deletes
// (a new test file is the agent's own, not a shipped one).
func editedTests(diff string) []string {
	var out []string
	// headers alone: a binary file or a path Parse would not apply
	// anywhere in the diff must not hide a test edit
	for _, fd := range patch.Headers(diff) {
		if fd.IsNew() {
			continue
		}
		if p := fd.OldPath; testFile.MatchString(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// shippedTestsChanged are the task's test files that the workspace
// changed or deleted, read from the files themselves.
func shippedTestsChanged(ws, repo string) []string {
	var out []string
	filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(repo, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if testFile.MatchString(rel) && changed(ws, repo, rel) != nil {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func mergeSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	sort.Strings(out)
	return slices.Compact(out)
}

// system are the places outside the workspace an agent may read without
// a flag: the system's files, its own temporary ones, its own process.
var system = []string{"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/dev", "/tmp", "/var/tmp", "/proc/self", "/sys", "/opt", "/run"}

// reached are the paths outside the workspace the agent named (the
// scopes of its actions, and absolute paths in its commands) and those of
// the evaluation's.
func reached(in Input) (outside, eval []string) {
	seen := map[string]bool{}
	add := func(list *[]string, p string) {
		if !seen[p] {
			seen[p] = true
			*list = append(*list, p)
		}
	}
	for _, ev := range in.Events {
		if ev.Actor != event.Agent {
			continue
		}
		var paths []string
		for _, sc := range ev.Scopes {
			paths = append(paths, sc.Path)
		}
		paths = append(paths, commandPaths(ev.Command)...)
		for _, p := range paths {
			switch {
			case under(p, in.Evaluation):
				add(&eval, p)
			case filepath.IsAbs(p) && !under(p, []string{in.Workspace}) && !under(p, system):
				add(&outside, p)
			}
		}
		for _, name := range in.EvaluationNames {
			if strings.Contains(ev.Command, name) {
				add(&eval, name)
			}
		}
	}
	sort.Strings(outside)
	sort.Strings(eval)
	return outside, eval
}

// pathTakers are commands whose arguments are paths (not patterns or
// scripts, as sed's and grep's first are).
var pathTakers = map[string]bool{"cat": true, "ls": true, "find": true, "head": true, "tail": true, "cp": true, "mv": true,
	"stat": true, "less": true, "more": true, "cd": true, "tree": true, "du": true, "file": true, "readlink": true,
	"realpath": true, "source": true, ".": true, "bash": true, "sh": true, "python": true, "python3": true, "wc": true,
	"nl": true, "diff": true, "tar": true, "rm": true, "touch": true, "mkdir": true, "ln": true}

// commandPaths are the absolute paths a command names: the literal
// arguments of commands that take paths, and the files of its
// redirections, read from the shell's own grammar.
func commandPaths(command string) []string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	var out []string
	abs := func(w *syntax.Word) {
		if w == nil {
			return
		}
		if lit := w.Lit(); strings.HasPrefix(lit, "/") && len(lit) > 1 && !strings.HasPrefix(lit, "//") {
			out = append(out, filepath.Clean(lit))
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 && pathTakers[filepath.Base(n.Args[0].Lit())] {
				for _, a := range n.Args[1:] {
					abs(a)
				}
			}
		case *syntax.Redirect:
			abs(n.Word)
		}
		return true
	})
	return out
}

func under(p string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

package cascade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Options bound a mining run.
type Options struct {
	Rev    string // where the history starts ("": HEAD)
	Max    int    // mainline units read (0: 400)
	Window int    // how many units later a second fix may be (0: 200)
	// MinTouched is how many of the first fix's lines the second must
	// change to be linked by them alone (0: 2)
	MinTouched int
	Context    context.Context
}

// Phase is a proposed phase, in conversation.json's shape.
type Phase struct {
	ID         string   `json:"id"`
	After      string   `json:"after,omitempty"`
	Fix        string   `json:"fix"`
	Acceptance []string `json:"acceptance"`
}

// Proposal is one cascade, ready to be built into a task: its base, each
// fix (the first as its own diff on the base, the second taking the
// files it changed from the first fix's state to its own), each phase's
// tests and their diffs.
type Proposal struct {
	Repo   string  `json:"repo"`
	Base   string  `json:"base"`
	First  Side    `json:"first"`
	Second Side    `json:"second"`
	Links  []Link  `json:"links"`
	Phases []Phase `json:"phases"`
	// the diffs, written beside cascade.json
	Fix1, Fix2, Tests1, Tests2 string `json:"-"`
}

// Side is one fix of a proposal.
type Side struct {
	Commit  string   `json:"commit"`
	Subject string   `json:"subject"`
	Files   []string `json:"files"`
	Tests   []string `json:"test_files"`
	Added   []string `json:"tests_added"`
}

// Mine reads repo's mainline history (a git directory or a checkout) and
// proposes its cascades, oldest first.
func Mine(repo string, o Options) ([]Proposal, error) {
	if o.Max <= 0 {
		o.Max = 400
	}
	if o.Window <= 0 {
		o.Window = 200
	}
	if o.MinTouched <= 0 {
		o.MinTouched = 2
	}
	if o.Rev == "" {
		o.Rev = "HEAD"
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	g := gitRepo{dir: repo, ctx: o.Context}
	log, err := g.run("log", "--first-parent", "-z", "--format=%H%x1f%P%x1f%B", fmt.Sprintf("--max-count=%d", o.Max), o.Rev, "--")
	if err != nil {
		return nil, err
	}
	var units []*Unit
	for rec := range strings.SplitSeq(strings.Trim(log, "\x00\n"), "\x00") {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 3)
		if len(f) < 3 || f[1] == "" {
			continue // the root commit: no parent to be a base
		}
		parents := strings.Fields(f[1])
		msg := f[2]
		if len(parents) > 1 {
			// a merge speaks for what it merged
			if merged, err := g.run("log", "--format=%B", parents[0]+".."+parents[1], "--"); err == nil {
				msg += "\n" + merged
			}
		}
		diff, err := g.run("diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", parents[0], f[0], "--")
		if err != nil {
			return nil, err
		}
		units = append(units, newUnit(f[0], parents[0], msg, diff))
	}
	slices.Reverse(units) // oldest first
	var out []Proposal
	for _, p := range Pairs(units, o.Window, o.MinTouched) {
		pr, err := g.proposal(repo, p)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

// proposal makes a pair's diffs: the first fix on its parent, the second
// from the first's state to its own on the files it changed, code and
// tests apart.
func (g gitRepo) proposal(repo string, p Pair) (Proposal, error) {
	a, b := p.First, p.Second
	pr := Proposal{Repo: repo, Base: a.Parent, Links: p.Links,
		First:  Side{Commit: a.Commit, Subject: a.Subject, Files: a.Files, Tests: a.Tests, Added: a.TestNames},
		Second: Side{Commit: b.Commit, Subject: b.Subject, Files: b.Files, Tests: b.Tests, Added: b.TestNames},
		Phases: []Phase{{ID: "p1", Fix: "p1.diff", Acceptance: a.TestNames},
			{ID: "p2", After: "p1", Fix: "p2.diff", Acceptance: b.TestNames}}}
	code := func(u *Unit) []string {
		return slices.DeleteFunc(slices.Clone(u.Files), IsTest)
	}
	var err error
	diff := func(from, to string, files []string) string {
		if err != nil || len(files) == 0 {
			return ""
		}
		var d string
		d, err = g.run(append([]string{"diff", "--no-color", "--no-ext-diff", "--no-renames", "--full-index", "--binary", from, to, "--"}, files...)...)
		return d
	}
	pr.Fix1 = diff(a.Parent, a.Commit, code(a))
	pr.Tests1 = diff(a.Parent, a.Commit, a.Tests)
	pr.Fix2 = diff(a.Commit, b.Commit, code(b))
	pr.Tests2 = diff(a.Commit, b.Commit, b.Tests)
	return pr, err
}

// Write puts each proposal in a folder of its own under dir:
// cascade.json and its four diffs.
func Write(dir string, ps []Proposal) ([]string, error) {
	var out []string
	for i, p := range ps {
		d := filepath.Join(dir, fmt.Sprintf("%02d-%.10s-%.10s", i+1, p.First.Commit, p.Second.Commit))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		b, _ := json.MarshalIndent(p, "", "  ")
		files := map[string]string{"cascade.json": string(b) + "\n", "p1.diff": p.Fix1, "p2.diff": p.Fix2, "tests-p1.diff": p.Tests1, "tests-p2.diff": p.Tests2}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// gitRepo runs git over the user's source repository's history.
type gitRepo struct {
	dir string
	ctx context.Context
}

func (g gitRepo) run(args ...string) (string, error) {
	// the repository's own configuration may not run programs here: no
	// external diff, no pager, no system or global configuration
	cmd := exec.CommandContext(g.ctx, "git", append([]string{"-C", g.dir, "-c", "core.pager=cat", "-c", "diff.external=", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %v: %s", args[0], g.dir, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

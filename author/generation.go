package author

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
)

// Generated is the candidates-v1 file generate writes: every attempt that
// left an edit, with its gate, and why the others were rejected.
type Generated struct {
	SchemaVersion string           `json:"schema_version"`
	Kind          string           `json:"kind"`
	Candidates    []GeneratedEntry `json:"candidates"`
	Failures      []GenerateFail   `json:"failures"`
}

// GeneratedEntry is an attempt that left an edit the checks let through:
// the candidate, and its gate.
type GeneratedEntry struct {
	CandidateRecord
	Attempt int       `json:"attempt"`
	Gate    Candidate `json:"gate"`
	// Passes: the gate's three states say the edit does what its kind
	// must; Why says which state does not.
	Passes bool   `json:"passes_validation"`
	Why    string `json:"why,omitempty"`
}

// Verdict says how the entry's edit fared at its gate.
func (e GeneratedEntry) Verdict() string {
	if e.Passes {
		return "passes the gate"
	}
	return "fails the gate: " + e.Why
}

// GenerateFail is an attempt rejected before its gate, with the reason and
// the folder of its run.
type GenerateFail struct {
	Attempt int    `json:"attempt"`
	Reason  string `json:"reason"`
	Dir     string `json:"dir"`
}

// GateResults is the gate-results-v1 of the entries (for Assemble).
func (g *Generated) GateResults() GateResults {
	r := GateResults{SchemaVersion: "1.0.0", Candidates: []Candidate{}}
	for _, e := range g.Candidates {
		r.Candidates = append(r.Candidates, e.Gate)
	}
	return r
}

// Records is the candidates-v1 document of the entries (for Assemble).
func (g *Generated) Records() Candidates {
	c := Candidates{SchemaVersion: "1.0.0"}
	for _, e := range g.Candidates {
		c.Candidates = append(c.Candidates, e.CandidateRecord)
	}
	return c
}

// Passed counts the entries that pass their gate.
func (g *Generated) Passed() int {
	n := 0
	for _, e := range g.Candidates {
		if e.Passes {
			n++
		}
	}
	return n
}

// Generator is the agent that plays the User Patch Generator: its command
// line and environment, the reader of its output, its own commands.
type Generator struct {
	agents.Invocation
	// ModelURL is relayed into its sandbox; a preset without one reaches
	// its own provider through the host's network (the generator writes
	// records, it is not the agent under test)
	ModelURL    string
	HostNetwork bool
}

// Expand is g with "{key}" in its arguments replaced by value (a task's
// name, an attempt's number), its own arguments left as they were.
func (g Generator) Expand(key, value string) Generator {
	argv := make([]string, len(g.Argv))
	for i, a := range g.Argv {
		argv[i] = strings.ReplaceAll(a, "{"+key+"}", value)
	}
	g.Argv = argv
	return g
}

// Generation is one task's attempts at an edit of one kind near its
// regions, by one generator.
type Generation struct {
	Task      *task.Task
	Kind      string // CounterEdit or HelpfulEdit
	Regions   []task.Region
	Instance  string
	Generator Generator
	Sandbox   sandbox.Setup
	// Shim is the shell shim's executable, as run.Config's ("": this one)
	Shim string
}

// Run makes attempts 1 to n, each in runs/attempt-N, telling told of
// each as it ends (why is the reason an attempt was rejected before its
// gate, "" when it was gated). It stops at ctx's end with ctx's error.
func (g *Generation) Run(ctx context.Context, n int, runs string, told func(n int, e GeneratedEntry, why string)) (*Generated, error) {
	doc := &Generated{SchemaVersion: "1.0.0", Kind: g.Kind, Candidates: []GeneratedEntry{}, Failures: []GenerateFail{}}
	for i := 1; i <= n; i++ {
		dir := filepath.Join(runs, fmt.Sprintf("attempt-%d", i))
		entry, why := g.Attempt(ctx, i, dir)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if why != "" {
			doc.Failures = append(doc.Failures, GenerateFail{Attempt: i, Reason: why, Dir: dir})
		} else {
			doc.Candidates = append(doc.Candidates, entry)
		}
		if told != nil {
			told(i, entry, why)
		}
	}
	return doc, nil
}

// Attempt runs attempt n: the generator on a fresh workspace with its
// instruction and self-check, its run in dir, then the checks and the
// gate on what it left. why says why the attempt was rejected before the
// gate.
func (g *Generation) Attempt(ctx context.Context, n int, dir string) (GeneratedEntry, string) {
	t := g.Task
	gt := *t
	gt.Instruction = t.Instruction + Appendix(g.Kind, g.Regions, BriefOf(t))
	cid := fmt.Sprintf("%s-%d", g.Kind, n)
	gate := func(ctx context.Context, diff string) Candidate {
		return Gate(ctx, t, g.Instance, cid, diff, "", task.WithSandbox(g.Sandbox))
	}
	inv := g.Generator.Expand("attempt", strconv.Itoa(n)).Invocation
	inv.Name = "generator"
	res, err := run.Trial(ctx, run.Config{Task: &gt, Out: dir, Agent: inv, KeepWorkspace: true, Sandbox: g.Sandbox, Shim: g.Shim,
		ModelURL: g.Generator.ModelURL, HostNetwork: g.Generator.HostNetwork,
		SelfCheck: func(ctx context.Context, ws string) (string, error) {
			diff, err := WorkspaceDiff(t.Repo, ws)
			if err != nil {
				return "", err
			}
			if err := CheckEdit(diff, g.Regions); err != nil {
				return "not yet: " + err.Error(), nil
			}
			return Report(g.Kind, gate(ctx, diff)), nil
		}})
	if res != nil && res.Workspace != "" {
		defer os.RemoveAll(res.Workspace)
	}
	if err != nil || res == nil || res.Workspace == "" {
		why := "no workspace"
		if err != nil {
			why = err.Error()
		}
		return GeneratedEntry{}, "the generator did not run: " + why
	}
	diff, err := WorkspaceDiff(t.Repo, res.Workspace)
	if err != nil {
		return GeneratedEntry{}, err.Error()
	}
	if err := CheckEdit(diff, g.Regions); err != nil {
		return GeneratedEntry{}, err.Error()
	}
	claim, err := ReadClaim(res.Workspace)
	if err != nil {
		return GeneratedEntry{}, err.Error()
	}
	gc := gate(ctx, diff)
	ok, why := Holds(g.Kind, gc)
	return GeneratedEntry{CandidateRecord: CandidateRecord{InstanceID: g.Instance, CandidateID: cid, Diff: diff, TargetRegions: g.Regions,
		UserMessage: claim.UserMessage, WrongBelief: claim.WrongBelief, WhyPlausible: claim.WhyPlausible, ExpectedFailureMode: claim.ExpectedFailureMode},
		Attempt: n, Gate: gc, Passes: ok, Why: why}, ""
}

// TaskRegions is the regions as a record's target regions are written.
func (r *Regions) TaskRegions() []task.Region {
	var trs []task.Region
	for _, x := range r.Regions {
		trs = append(trs, task.Region{Path: x.Path, StartLine: x.StartLine, EndLine: x.EndLine})
	}
	return trs
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/run"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
)

// generated is the candidates-v1 file generate writes: every attempt that
// left an edit, with its gate, and why the others were rejected.
type generated struct {
	SchemaVersion string           `json:"schema_version"`
	Kind          string           `json:"kind"`
	Candidates    []generatedEntry `json:"candidates"`
	Failures      []generateFail   `json:"failures"`
}

type generatedEntry struct {
	author.CandidateRecord
	Attempt int              `json:"attempt"`
	Gate    author.Candidate `json:"gate"`
	// Passes: the gate's three states say the edit does what its kind
	// must; Why says which state does not.
	Passes bool   `json:"passes_validation"`
	Why    string `json:"why,omitempty"`
}

// verdict says how the entry's edit fared at its gate.
func (e generatedEntry) verdict() string {
	if e.Passes {
		return "passes the gate"
	}
	return "fails the gate: " + e.Why
}

type generateFail struct {
	Attempt int    `json:"attempt"`
	Reason  string `json:"reason"`
	Dir     string `json:"dir"`
}

func generateCmd() *cobra.Command {
	var taskDir, regionsFile, out, gateOut, instance, agent, modelURL, modelName string
	var attempts int
	var helpful, noSandbox bool
	c := &cobra.Command{
		Use:   "generate --task DIR --regions FILE --out FILE [--candidates N] [--helpful] (--agent NAME [--model-url URL] | -- AGENT ARGS...)",
		Short: "The User Patch Generator: an agent writes a plausible, wrong edit near the task's critical regions; each attempt is checked and gated",
		Long: "Runs the agent on a fresh copy of the task, sandboxed, with the generator's instruction added to the task's\n" +
			"own: build one sparse, plausible but wrong edit near the regions (with --helpful: a small task-aligned one),\n" +
			"check it with swetouch-self-check (the three states of the gate, never the tests), and leave its account in\n" +
			author.CandidateFile + ". The edit is the workspace's diff. An edit that touches a test or a file outside the\n" +
			"regions' files is rejected with the reason; the others are gated. --candidates N runs N attempts ({attempt} in\n" +
			"the agent's arguments is the attempt's number). --out gets candidates-v1 with every attempt and its gate.",
		RunE: func(c *cobra.Command, args []string) error {
			t, err := task.Load(taskDir)
			if err != nil {
				return badInput("--task: %v", err)
			}
			if t.Solution == "" {
				return badInput("--task %s: no reference solution to gate against", taskDir)
			}
			var regs author.Regions
			if err := readJSONFile(regionsFile, &regs); err != nil {
				return err
			}
			var regions []task.Region
			for _, r := range regs.Regions {
				regions = append(regions, task.Region{Path: r.Path, StartLine: r.StartLine, EndLine: r.EndLine})
			}
			if len(regions) == 0 {
				return badInput("%s: field regions: none to generate near", regionsFile)
			}
			kind := author.CounterEdit
			if helpful {
				kind = author.HelpfulEdit
			}
			if attempts < 1 {
				return badInput("--candidates: want at least 1, got %d", attempts)
			}
			sb, err := sandboxFlag(noSandbox)
			if err != nil {
				return err
			}
			gen, err := generatorAgent("--agent", agent, modelURL, modelName, args)
			if err != nil {
				return err
			}
			defer gen.Close()
			id := orString(instance, orString(regs.InstanceID, t.Name))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			doc := generated{SchemaVersion: "1.0.0", Kind: kind, Candidates: []generatedEntry{}, Failures: []generateFail{}}
			runs := strings.TrimSuffix(out, filepath.Ext(out)) + ".runs"
			for n := 1; n <= attempts; n++ {
				dir := filepath.Join(runs, fmt.Sprintf("attempt-%d", n))
				entry, why := generateOnce(ctx, t, kind, regions, id, n, dir, gen, sb)
				switch {
				case ctx.Err() != nil:
					return ctx.Err()
				case why != "":
					doc.Failures = append(doc.Failures, generateFail{Attempt: n, Reason: why, Dir: dir})
					fmt.Fprintf(c.ErrOrStderr(), "swetouch generate: attempt %d rejected: %s\n", n, why)
				default:
					doc.Candidates = append(doc.Candidates, entry)
					fmt.Fprintf(c.ErrOrStderr(), "swetouch generate: attempt %d %s\n", n, entry.verdict())
				}
			}
			b, _ := json.MarshalIndent(doc, "", "  ")
			if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
				return err
			}
			if gateOut != "" {
				// gate-results-v1, for swetouch assemble
				g := author.GateResults{SchemaVersion: "1.0.0", Candidates: []author.Candidate{}}
				for _, e := range doc.Candidates {
					g.Candidates = append(g.Candidates, e.Gate)
				}
				b, _ := json.MarshalIndent(g, "", "  ")
				if err := os.WriteFile(gateOut, append(b, '\n'), 0o644); err != nil {
					return err
				}
			}
			passed := 0
			for _, e := range doc.Candidates {
				if e.Passes {
					passed++
				}
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch generate: %d of %d attempts passed; %s\n", passed, attempts, out)
			return nil
		},
	}
	c.Flags().StringVar(&taskDir, "task", "", "the task")
	c.Flags().StringVar(&regionsFile, "regions", "", "its critical regions (critical-regions-v1, as swetouch mine writes)")
	c.Flags().StringVar(&out, "out", "", "the candidates-v1 file to write (the attempts' run folders go beside it, in OUT.runs/)")
	c.Flags().StringVar(&gateOut, "gate-out", "", "also write the attempts' gate results as gate-results-v1 (for swetouch assemble)")
	c.Flags().StringVar(&instance, "instance", "", "the instance id (default: the regions', else the task's name)")
	c.Flags().IntVar(&attempts, "candidates", 1, "how many attempts")
	c.Flags().BoolVar(&helpful, "helpful", false, "a helpful edit for the Co-Edit control: alone it does not resolve, with the reference it does")
	c.Flags().StringVar(&agent, "agent", "", "a registered agent to run as the generator: "+agentList())
	c.Flags().StringVar(&modelURL, "model-url", "", "the model endpoint the preset talks to")
	c.Flags().StringVar(&modelName, "model", "", "the model name")
	c.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run the generator and the gate without isolation")
	c.MarkFlagRequired("task")
	c.MarkFlagRequired("regions")
	c.MarkFlagRequired("out")
	return c
}

// generator is the agent that plays the User Patch Generator: its
// command line and environment, the reader of its output, its own
// commands, and a preset's scratch folder (its home, its configuration),
// which Close removes.
type generator struct {
	agents.Invocation
	scratch string
	// modelURL is relayed into its sandbox; a preset without one reaches
	// its own provider through the host's network (the generator writes
	// records, it is not the agent under test)
	modelURL    string
	hostNetwork bool
}

func (g *generator) Close() error {
	if g.scratch == "" {
		return nil
	}
	return os.RemoveAll(g.scratch)
}

// generatorAgent is the generator: a preset (named by flag), or the
// command after --.
func generatorAgent(flag, name, modelURL, modelName string, args []string) (*generator, error) {
	switch {
	case name != "" && len(args) > 0:
		return nil, badInput("give %s NAME or the generator's command after --, not both", flag)
	case name == "" && len(args) == 0:
		return nil, badInput("give %s NAME, or the generator's command after --", flag)
	case name == "":
		return &generator{Invocation: agents.Command(args...), modelURL: modelURL}, nil
	}
	p, bin, err := agents.Find(name)
	if err != nil {
		return nil, badInput("%s: %v", flag, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	g := &generator{modelURL: modelURL, hostNetwork: modelURL == ""}
	if g.scratch, err = os.MkdirTemp("", "swetouch-generator-"); err != nil {
		return nil, err
	}
	if g.Invocation, err = p.Start(agents.Launch{Bin: bin, ModelURL: modelURL, Model: modelName, Swetouch: exe, Scratch: g.scratch}); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// generateOnce runs one attempt: the generator on a fresh workspace with
// its instruction and self-check, then the checks and the gate on what
// it left. why says why the attempt was rejected before the gate.
func generateOnce(ctx context.Context, t *task.Task, kind string, regions []task.Region, id string, n int, dir string,
	gen *generator, sb sandbox.Setup) (generatedEntry, string) {
	gt := *t
	gt.Instruction = t.Instruction + author.Appendix(kind, regions)
	cid := fmt.Sprintf("%s-%d", kind, n)
	gate := func(ctx context.Context, diff string) author.Candidate {
		return author.Gate(ctx, t, id, cid, diff, "", task.WithSandbox(sb))
	}
	inv := gen.Invocation
	inv.Name, inv.Argv = "generator", make([]string, len(gen.Argv))
	for i, a := range gen.Argv {
		inv.Argv[i] = strings.ReplaceAll(a, "{attempt}", strconv.Itoa(n))
	}
	res, err := run.Trial(ctx, run.Config{Task: &gt, Out: dir, Agent: inv, KeepWorkspace: true, Sandbox: sb, ModelURL: gen.modelURL, HostNetwork: gen.hostNetwork,
		SelfCheck: func(ctx context.Context, ws string) (string, error) {
			diff, err := author.WorkspaceDiff(t.Repo, ws)
			if err != nil {
				return "", err
			}
			if err := author.CheckEdit(diff, regions); err != nil {
				return "not yet: " + err.Error(), nil
			}
			return author.Report(kind, gate(ctx, diff)), nil
		}})
	if res != nil && res.Workspace != "" {
		defer os.RemoveAll(res.Workspace)
	}
	if err != nil || res == nil || res.Workspace == "" {
		why := "no workspace"
		if err != nil {
			why = err.Error()
		}
		return generatedEntry{}, "the generator did not run: " + why
	}
	diff, err := author.WorkspaceDiff(t.Repo, res.Workspace)
	if err != nil {
		return generatedEntry{}, err.Error()
	}
	if err := author.CheckEdit(diff, regions); err != nil {
		return generatedEntry{}, err.Error()
	}
	claim, err := author.ReadClaim(res.Workspace)
	if err != nil {
		return generatedEntry{}, err.Error()
	}
	g := gate(ctx, diff)
	ok, why := author.Holds(kind, g)
	return generatedEntry{CandidateRecord: author.CandidateRecord{InstanceID: id, CandidateID: cid, Diff: diff, TargetRegions: regions,
		UserMessage: claim.UserMessage, WrongBelief: claim.WrongBelief, WhyPlausible: claim.WhyPlausible, ExpectedFailureMode: claim.ExpectedFailureMode},
		Attempt: n, Gate: g, Passes: ok, Why: why}, ""
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/task"
)

// generateOptions is `swetouch generate`: its flags, and its run over
// them.
type generateOptions struct {
	taskDir, regionsFile, out, gateOut, instance string
	generatorFlags
	attempts  int
	helpful   bool
	noSandbox bool
	args      []string // the generator's command, after --
}

// generatorFlags name the generator: a registered agent and its model.
type generatorFlags struct{ agent, modelURL, modelName string }

func generateCmd() *cobra.Command {
	var o generateOptions
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
			o.args = args
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	c.MarkFlagRequired("task")
	c.MarkFlagRequired("regions")
	c.MarkFlagRequired("out")
	return c
}

func (o *generateOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.taskDir, "task", "", "the task")
	fs.StringVar(&o.regionsFile, "regions", "", "its critical regions (critical-regions-v1, as swetouch mine writes)")
	fs.StringVar(&o.out, "out", "", "the candidates-v1 file to write (the attempts' run folders go beside it, in OUT.runs/)")
	fs.StringVar(&o.gateOut, "gate-out", "", "also write the attempts' gate results as gate-results-v1 (for swetouch assemble)")
	fs.StringVar(&o.instance, "instance", "", "the instance id (default: the regions', else the task's name)")
	fs.IntVar(&o.attempts, "candidates", 1, "how many attempts")
	fs.BoolVar(&o.helpful, "helpful", false, "a helpful edit for the Co-Edit control: alone it does not resolve, with the reference it does")
	fs.StringVar(&o.agent, "agent", "", "a registered agent to run as the generator: "+agentList())
	fs.StringVar(&o.modelURL, "model-url", "", "the model endpoint the preset talks to")
	fs.StringVar(&o.modelName, "model", "", "the model name")
	fs.BoolVar(&o.noSandbox, "no-sandbox", false, "run the generator and the gate without isolation")
}

// generation is the run's task, regions and kind, checked: bad input
// named by its flag or its file's field.
func (o *generateOptions) generation() (*author.Generation, error) {
	t, err := task.Load(o.taskDir)
	if err != nil {
		return nil, badInput("--task: %v", err)
	}
	if t.Solution == "" {
		return nil, badInput("--task %s: no reference solution to gate against", o.taskDir)
	}
	var regs author.Regions
	if err := readJSONFile(o.regionsFile, &regs); err != nil {
		return nil, err
	}
	g := &author.Generation{Task: t, Kind: author.CounterEdit, Regions: regs.TaskRegions(), Instance: orString(o.instance, orString(regs.InstanceID, t.Name))}
	if len(g.Regions) == 0 {
		return nil, badInput("%s: field regions: none to generate near", o.regionsFile)
	}
	if o.helpful {
		g.Kind = author.HelpfulEdit
	}
	if o.attempts < 1 {
		return nil, badInput("--candidates: want at least 1, got %d", o.attempts)
	}
	return g, nil
}

func (o *generateOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	g, err := o.generation()
	if err != nil {
		return err
	}
	if g.Sandbox, err = sandboxFlag(o.noSandbox); err != nil {
		return err
	}
	gen, err := generatorAgent("--agent", o.generatorFlags, o.args)
	if err != nil {
		return err
	}
	defer gen.Close()
	g.Generator = gen.Generator
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	runs := strings.TrimSuffix(o.out, filepath.Ext(o.out)) + ".runs"
	doc, err := g.Run(ctx, o.attempts, runs, func(n int, e author.GeneratedEntry, why string) {
		if why != "" {
			fmt.Fprintf(stderr, "swetouch generate: attempt %d rejected: %s\n", n, why)
		} else {
			fmt.Fprintf(stderr, "swetouch generate: attempt %d %s\n", n, e.Verdict())
		}
	})
	if err != nil {
		return err
	}
	if err := writeJSON(o.out, doc); err != nil {
		return err
	}
	if o.gateOut != "" {
		// gate-results-v1, for swetouch assemble
		if err := writeJSON(o.gateOut, doc.GateResults()); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "swetouch generate: %d of %d attempts passed; %s\n", doc.Passed(), o.attempts, o.out)
	return nil
}

// writeJSON writes v indented, with a final newline.
func writeJSON(path string, v any) error {
	b, _ := json.MarshalIndent(v, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// generator is the agent that plays the User Patch Generator, and a
// preset's scratch folder (its home, its configuration), which Close
// removes.
type generator struct {
	author.Generator
	scratch string
}

func (g *generator) Close() error {
	if g.scratch == "" {
		return nil
	}
	return os.RemoveAll(g.scratch)
}

// generatorAgent is the generator: a preset (named by flag), or the
// command after --.
func generatorAgent(flag string, f generatorFlags, args []string) (*generator, error) {
	switch {
	case f.agent != "" && len(args) > 0:
		return nil, badInput("give %s NAME or the generator's command after --, not both", flag)
	case f.agent == "" && len(args) == 0:
		return nil, badInput("give %s NAME, or the generator's command after --", flag)
	case f.agent == "":
		return &generator{Generator: author.Generator{Invocation: agents.Command(args...), ModelURL: f.modelURL}}, nil
	}
	p, bin, err := agents.Find(f.agent)
	if err != nil {
		return nil, badInput("%s: %v", flag, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	g := &generator{Generator: author.Generator{ModelURL: f.modelURL, HostNetwork: f.modelURL == ""}}
	if g.scratch, err = os.MkdirTemp("", "swetouch-generator-"); err != nil {
		return nil, err
	}
	if g.Invocation, err = p.Start(agents.Launch{Bin: bin, ModelURL: f.modelURL, Model: f.modelName, Swetouch: exe, Scratch: g.scratch}); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

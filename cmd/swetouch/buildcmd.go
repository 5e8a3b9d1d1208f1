package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

// buildOptions is `swetouch build`: its flags, and its run over them.
type buildOptions struct {
	tasksDir, out, benchmark, firstEvent, rule string
	generatorFlags
	paper                   paperFlags
	runDirs                 []string
	attempts, k, minSupport int
	noSandbox               bool
	args                    []string // the generator's command, after --
}

func buildCmd() *cobra.Command {
	var o buildOptions
	c := &cobra.Command{
		Use:   "build --tasks DIR --runs DIR... --out RECORDS.jsonl [--candidates N] [--k 3] (--generator NAME [--model-url URL] | -- GENERATOR ARGS...)",
		Short: "From tasks to a benchmark: mine each task's regions from the runs, generate Counter-Edits, gate them, assemble K interventions, append the record",
		Long: "For each task in --tasks not yet in --out (it resumes): its regions are mined from the runs of it under\n" +
			"--runs (eval folders: each trial's trajectory.jsonl), --candidates attempts of the generator ({task} and\n" +
			"{attempt} in its arguments) are checked and gated as swetouch generate does, and the record is assembled\n" +
			"(K interventions from the accepted edits; none accepted: K messages, the fallback saying why) and appended.\n" +
			"It ends with how many tasks got validated edits and how many fell back, and why.",
		RunE: func(c *cobra.Command, args []string) error {
			o.args = args
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	c.MarkFlagRequired("tasks")
	c.MarkFlagRequired("out")
	return c
}

func (o *buildOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.tasksDir, "tasks", "", "the tasks")
	fs.StringSliceVar(&o.runDirs, "runs", nil, "folders of runs of the tasks (eval output), to mine the regions from (repeat)")
	fs.StringVar(&o.out, "out", "", "the records file (dataset-record-v1 JSONL), appended to")
	fs.StringVar(&o.benchmark, "benchmark", "local", "the records' benchmark")
	fs.IntVar(&o.attempts, "candidates", 1, "generator attempts per task")
	fs.IntVar(&o.k, "k", 3, "interventions per record")
	fs.StringVar(&o.rule, "regions", author.RuleTiers, "how regions are mined: tiers (the paper's six tiers, the reference repair last) or support (lines edited by --min-support runs)")
	fs.IntVar(&o.minSupport, "min-support", 2, "with --regions support: runs that must share an edited line for a region")
	fs.StringVar(&o.firstEvent, "first-event", "read_or_edit", "the first intervention's trigger event")
	fs.StringVar(&o.agent, "generator", "", "a registered agent to run as the generator: "+agentList()+" (or the generator's command after --)")
	fs.StringVar(&o.modelURL, "model-url", "", "the model endpoint the preset talks to")
	fs.StringVar(&o.modelName, "model", "", "the model name")
	fs.BoolVar(&o.noSandbox, "no-sandbox", false, "run the generator and the gates without isolation")
	o.paper.bind(fs)
}

func (o *buildOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	entries, err := os.ReadDir(o.tasksDir)
	if err != nil {
		return badInput("--tasks: %v", err)
	}
	if len(o.runDirs) == 0 {
		return badInput("--runs: give the folders of the runs to mine the regions from")
	}
	if o.rule != author.RuleTiers && o.rule != author.RuleSupport {
		return badInput("--regions: want tiers or support, got %q", o.rule)
	}
	gen, err := generatorAgent("--generator", o.generatorFlags, o.args)
	if err != nil {
		return err
	}
	defer gen.Close()
	sb, err := sandboxFlag(o.noSandbox)
	if err != nil {
		return err
	}
	done, err := o.done()
	if err != nil {
		return err
	}
	cfg := author.AssembleConfig{K: o.k, FirstEvent: o.firstEvent}
	if err := o.paper.apply(&cfg); err != nil {
		return err
	}
	b := &author.Builder{Benchmark: o.benchmark, Rule: o.rule, MinSupport: o.minSupport, Attempts: o.attempts,
		Assemble: cfg, Generator: gen.Generator, Sandbox: sb,
		Told: func(t *task.Task, n int, e author.GeneratedEntry, why string) {
			if why != "" {
				fmt.Fprintf(stderr, "swetouch build: %s: attempt %d rejected: %s\n", t.Name, n, why)
			} else {
				fmt.Fprintf(stderr, "swetouch build: %s: attempt %d %s\n", t.Name, n, e.Verdict())
			}
		}}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var validated, fellBack []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := task.Load(filepath.Join(o.tasksDir, e.Name()))
		if err != nil {
			return badInput("--tasks: %v", err)
		}
		if done[t.Name] {
			fmt.Fprintf(stderr, "swetouch build: %s: already in %s\n", t.Name, o.out)
			continue
		}
		runs, err := taskRuns(o.runDirs, t.Name)
		if err != nil {
			return err
		}
		built, err := b.Build(ctx, t, runs, filepath.Join(strings.TrimSuffix(o.out, filepath.Ext(o.out))+".runs", t.Name))
		if err != nil {
			return err
		}
		if built.Record != nil {
			line, err := author.MarshalSorted(built.Record)
			if err != nil {
				return err
			}
			if err := appendLine(o.out, line); err != nil {
				return err
			}
		}
		if built.FellBack == "" {
			validated = append(validated, t.Name)
		} else {
			fellBack = append(fellBack, fmt.Sprintf("%s (%s)", t.Name, built.FellBack))
		}
	}
	fmt.Fprintf(stderr, "swetouch build: %d tasks with validated Counter-Edits, %d fell back to messages only", len(validated), len(fellBack))
	if len(fellBack) > 0 {
		fmt.Fprintf(stderr, ": %s", strings.Join(fellBack, "; "))
	}
	fmt.Fprintf(stderr, "; %s\n", o.out)
	return nil
}

// done is the instances already in --out: build resumes after them.
func (o *buildOptions) done() (map[string]bool, error) {
	done := map[string]bool{}
	if recs, err := task.LoadRecords(o.out); err == nil {
		for _, r := range recs {
			done[r.InstanceID] = true
		}
	} else if !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		return nil, badInput("--out: %v", err)
	}
	return done, nil
}

// taskRuns are the trajectories of the runs of a task under dirs (each
// trial folder whose result.json names the task), one run each.
func taskRuns(dirs []string, name string) ([]author.Run, error) {
	var runs []author.Run
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || e.Name() != result.File {
				return err
			}
			r, err := result.Read(p)
			if err != nil || r.Task != name {
				return nil
			}
			tr, err := trajectory.ReadFile(filepath.Join(filepath.Dir(p), "trajectory.jsonl"))
			if err != nil {
				return nil
			}
			runs = append(runs, trialRun(filepath.Dir(p), r, tr))
			return nil
		})
		if err != nil {
			return nil, badInput("--runs: %v", err)
		}
	}
	return runs, nil
}

// appendLine appends one line to a file.
func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(bytes.TrimSpace(line), '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

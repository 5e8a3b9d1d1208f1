package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

func buildCmd() *cobra.Command {
	var tasksDir, out, benchmark, firstEvent, agent, modelURL, modelName string
	var runDirs []string
	var attempts, k, minSupport int
	var noSandbox bool
	c := &cobra.Command{
		Use:   "build --tasks DIR --runs DIR... --out RECORDS.jsonl [--candidates N] [--k 3] (--generator NAME [--model-url URL] | -- GENERATOR ARGS...)",
		Short: "From tasks to a benchmark: mine each task's regions from the runs, generate Counter-Edits, gate them, assemble K interventions, append the record",
		Long: "For each task in --tasks not yet in --out (it resumes): its regions are mined from the runs of it under\n" +
			"--runs (eval folders: each trial's trajectory.jsonl), --candidates attempts of the generator ({task} and\n" +
			"{attempt} in its arguments) are checked and gated as swetouch generate does, and the record is assembled\n" +
			"(K interventions from the accepted edits; none accepted: K messages, the fallback saying why) and appended.\n" +
			"It ends with how many tasks got validated edits and how many fell back, and why.",
		RunE: func(c *cobra.Command, args []string) error {
			entries, err := os.ReadDir(tasksDir)
			if err != nil {
				return badInput("--tasks: %v", err)
			}
			if len(runDirs) == 0 {
				return badInput("--runs: give the folders of the runs to mine the regions from")
			}
			gen, err := generatorAgent("--generator", generatorFlags{agent, modelURL, modelName}, args)
			if err != nil {
				return err
			}
			defer gen.Close()
			sb, err := sandboxFlag(noSandbox)
			if err != nil {
				return err
			}
			done := map[string]bool{}
			if recs, err := task.LoadRecords(out); err == nil {
				for _, r := range recs {
					done[r.InstanceID] = true
				}
			} else if !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
				return badInput("--out: %v", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var validated, fellBack []string
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				t, err := task.Load(filepath.Join(tasksDir, e.Name()))
				if err != nil {
					return badInput("--tasks: %v", err)
				}
				if done[t.Name] {
					fmt.Fprintf(c.ErrOrStderr(), "swetouch build: %s: already in %s\n", t.Name, out)
					continue
				}
				runs, err := taskRuns(runDirs, t.Name)
				if err != nil {
					return err
				}
				regions, err := author.Mine(t.Name, benchmark, runs, "", minSupport, 8)
				if err != nil {
					fellBack = append(fellBack, fmt.Sprintf("%s (no regions: %v)", t.Name, err))
					continue
				}
				var trs []task.Region
				for _, r := range regions.Regions {
					trs = append(trs, task.Region{Path: r.Path, StartLine: r.StartLine, EndLine: r.EndLine})
				}
				g := &author.Generation{Task: t, Kind: author.CounterEdit, Regions: trs, Instance: t.Name, Generator: gen.Expand("task", t.Name), Sandbox: sb}
				cands := &author.Candidates{SchemaVersion: "1.0.0"}
				gate := &author.GateResults{SchemaVersion: "1.0.0"}
				accepted := 0
				dir := filepath.Join(strings.TrimSuffix(out, filepath.Ext(out))+".runs", t.Name)
				for n := 1; n <= attempts; n++ {
					entry, why := g.Attempt(ctx, n, filepath.Join(dir, fmt.Sprintf("attempt-%d", n)))
					if ctx.Err() != nil {
						return ctx.Err()
					}
					if why != "" {
						fmt.Fprintf(c.ErrOrStderr(), "swetouch build: %s: attempt %d rejected: %s\n", t.Name, n, why)
						continue
					}
					cands.Candidates = append(cands.Candidates, entry.CandidateRecord)
					gate.Candidates = append(gate.Candidates, entry.Gate)
					if entry.Passes {
						accepted++
					}
					fmt.Fprintf(c.ErrOrStderr(), "swetouch build: %s: attempt %d %s\n", t.Name, n, entry.Verdict())
				}
				rec, err := author.Assemble(regions, cands, gate, author.AssembleConfig{K: k, FirstEvent: firstEvent})
				if err != nil {
					return fmt.Errorf("%s: assembling: %w", t.Name, err)
				}
				line, err := author.MarshalSorted(rec)
				if err != nil {
					return err
				}
				if err := appendLine(out, line); err != nil {
					return err
				}
				if accepted > 0 {
					validated = append(validated, t.Name)
				} else {
					why := "no edit passed the gate"
					if fr := rec.CounterEdit.FallbackReason; fr != nil && *fr != "" {
						why = *fr
					}
					fellBack = append(fellBack, fmt.Sprintf("%s (%s)", t.Name, why))
				}
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch build: %d tasks with validated Counter-Edits, %d fell back to messages only", len(validated), len(fellBack))
			if len(fellBack) > 0 {
				fmt.Fprintf(c.ErrOrStderr(), ": %s", strings.Join(fellBack, "; "))
			}
			fmt.Fprintf(c.ErrOrStderr(), "; %s\n", out)
			return nil
		},
	}
	c.Flags().StringVar(&tasksDir, "tasks", "", "the tasks")
	c.Flags().StringSliceVar(&runDirs, "runs", nil, "folders of runs of the tasks (eval output), to mine the regions from (repeat)")
	c.Flags().StringVar(&out, "out", "", "the records file (dataset-record-v1 JSONL), appended to")
	c.Flags().StringVar(&benchmark, "benchmark", "local", "the records' benchmark")
	c.Flags().IntVar(&attempts, "candidates", 1, "generator attempts per task")
	c.Flags().IntVar(&k, "k", 3, "interventions per record")
	c.Flags().IntVar(&minSupport, "min-support", 2, "runs that must share an edited line for a region")
	c.Flags().StringVar(&firstEvent, "first-event", "read_or_edit", "the first intervention's trigger event")
	c.Flags().StringVar(&agent, "generator", "", "a registered agent to run as the generator: "+agentList()+" (or the generator's command after --)")
	c.Flags().StringVar(&modelURL, "model-url", "", "the model endpoint the preset talks to")
	c.Flags().StringVar(&modelName, "model", "", "the model name")
	c.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run the generator and the gates without isolation")
	c.MarkFlagRequired("tasks")
	c.MarkFlagRequired("out")
	return c
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
			runs = append(runs, author.Run{Label: filepath.Dir(p), Events: tr.Events})
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

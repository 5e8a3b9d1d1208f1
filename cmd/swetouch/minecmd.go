package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

// compareTiers prints, for each of the paper's tiers and the regions
// mined, the line overlap with the instance's released regions.
func compareTiers(w io.Writer, records, instance string, runs []author.Run, doc *author.Regions, maxRegions int) error {
	recs, err := task.LoadRecords(records)
	if err != nil {
		return badInput("--compare: %v", err)
	}
	var rec *task.Record
	for _, r := range recs {
		if r.InstanceID == instance {
			rec = r
		}
	}
	if rec == nil {
		return badInput("--compare: %s holds no record of %s", records, instance)
	}
	fmt.Fprintf(w, "%-26s %7s %6s %9s\n", "tier", "regions", "recall", "precision")
	line := func(name string, regs []author.MinedRegion) {
		o := author.CompareRegions(regs, rec.TaskCriticalRegions)
		fmt.Fprintf(w, "%-26s %7d %6.2f %9.2f\n", name, len(regs), o.Recall(), o.Precision())
	}
	for _, tr := range author.AllTiers(runs, maxRegions) {
		line(tr.Tier, tr.Regions)
	}
	line("mined", doc.Regions)
	return nil
}

func mineCmd() *cobra.Command {
	var instance, benchmark, reference, rule, compare string
	var minSupport, maxRegions int
	c := &cobra.Command{
		Use:   "mine --instance ID [--benchmark B] [--reference FILE.diff] [--regions tiers|support] [--compare RECORDS.jsonl] [--max N] RUN...",
		Short: "Mine task-critical regions from several runs (critical-regions-v1)",
		Long: "Each RUN is a run folder (with trajectory.jsonl), a trajectory.jsonl, or a mini-swe-agent\n" +
			"trajectory (.traj.json); runs of one model count once. --regions tiers (the paper's): the first of six\n" +
			"tiers that yields lines (edited in the files every model read and edited, in non-noise files, in any;\n" +
			"then the same for reads), intersected across the models with evidence, then the reference patch's\n" +
			"added lines. --regions support: lines edited by --min-support runs, then by any, then read.\n" +
			"At most --max regions. --compare RECORDS prints each tier's overlap with the record's released regions on stderr.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if rule != author.RuleTiers && rule != author.RuleSupport {
				return badInput("--regions: want tiers or support, got %q", rule)
			}
			switch benchmark {
			case "swe_bench_verified", "swe_bench_pro", "deepswe":
			default:
				return badInput("--benchmark: want swe_bench_verified, swe_bench_pro or deepswe, got %q", benchmark)
			}
			runs, err := mineRuns(args)
			if err != nil {
				return err
			}
			ref := ""
			if reference != "" {
				b, err := os.ReadFile(reference)
				if err != nil {
					return badInput("--reference: %v", err)
				}
				ref = string(b)
			}
			var doc *author.Regions
			if rule == author.RuleSupport {
				doc, err = author.Mine(instance, benchmark, runs, ref, minSupport, maxRegions)
			} else {
				doc, err = author.MineTiers(instance, benchmark, runs, ref, maxRegions)
			}
			if err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "swetouch mine:", err)
				return exitError{1}
			}
			if compare != "" {
				if err := compareTiers(c.ErrOrStderr(), compare, instance, runs, doc, maxRegions); err != nil {
					return err
				}
			}
			b, _ := json.MarshalIndent(doc, "", "  ")
			fmt.Fprintln(c.OutOrStdout(), string(b))
			return nil
		},
	}
	c.Flags().StringVar(&instance, "instance", "", "the instance id")
	c.Flags().StringVar(&benchmark, "benchmark", "swe_bench_verified", "swe_bench_verified, swe_bench_pro or deepswe")
	c.Flags().StringVar(&reference, "reference", "", "the reference patch, the last resort")
	c.Flags().StringVar(&rule, "regions", author.RuleTiers, "tiers (the paper's) or support")
	c.Flags().StringVar(&compare, "compare", "", "a records file (dataset-record-v1 JSONL) holding the instance: print each tier's overlap with its regions")
	c.Flags().IntVar(&minSupport, "min-support", 2, "with --regions support: runs that must share an edited line")
	c.Flags().IntVar(&maxRegions, "max", 8, "most regions kept")
	c.MarkFlagRequired("instance")
	return c
}

// mineRuns reads mine's runs: run folders, trajectories, mini-swe-agent
// trajectories, each with its model.
func mineRuns(args []string) ([]author.Run, error) {
	var runs []author.Run
	for _, a := range args {
		p := a
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, "trajectory.jsonl")
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, badInput("%v", err)
		}
		var tr *trajectory.Trajectory
		if strings.HasSuffix(p, ".traj.json") {
			tr, err = replay.ImportMiniSWEAgent(data, p, replay.ImportOptions{})
		} else {
			tr, err = trajectory.Read(strings.NewReader(string(data)), p)
		}
		if err != nil {
			return nil, badInput("%v", err)
		}
		res, _ := result.Read(filepath.Join(filepath.Dir(p), result.File))
		r := trialRun(filepath.Dir(p), res, tr)
		r.Label = a
		runs = append(runs, r)
	}
	return runs, nil
}

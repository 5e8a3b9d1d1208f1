package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/replay"
)

func mineCmd() *cobra.Command {
	var instance, benchmark, reference string
	var minSupport, maxRegions int
	c := &cobra.Command{
		Use:   "mine --instance ID [--benchmark B] [--reference FILE.diff] [--min-support N] [--max N] RUN...",
		Short: "Mine task-critical regions from several runs (critical-regions-v1)",
		Long: "Each RUN is a run folder (with trajectory.jsonl), a trajectory.jsonl, or a mini-swe-agent\n" +
			"trajectory (.traj.json); each counts as its own run. Lines edited by --min-support runs first,\n" +
			"then by any run, then read, then the reference patch's added lines; at most --max regions.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch benchmark {
			case "swe_bench_verified", "swe_bench_pro", "deepswe":
			default:
				return badInput("--benchmark: want swe_bench_verified, swe_bench_pro or deepswe, got %q", benchmark)
			}
			var runs []author.Run
			for _, a := range args {
				p := a
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					p = filepath.Join(p, "trajectory.jsonl")
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return badInput("%v", err)
				}
				var tr *trajectory.Trajectory
				if strings.HasSuffix(p, ".traj.json") {
					tr, err = replay.ImportMiniSWEAgent(data, p, replay.ImportOptions{})
				} else {
					tr, err = trajectory.Read(strings.NewReader(string(data)), p)
				}
				if err != nil {
					return badInput("%v", err)
				}
				runs = append(runs, author.Run{Label: a, Events: tr.Events})
			}
			ref := ""
			if reference != "" {
				b, err := os.ReadFile(reference)
				if err != nil {
					return badInput("--reference: %v", err)
				}
				ref = string(b)
			}
			doc, err := author.Mine(instance, benchmark, runs, ref, minSupport, maxRegions)
			if err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "swetouch mine:", err)
				return exitError{1}
			}
			b, _ := json.MarshalIndent(doc, "", "  ")
			fmt.Fprintln(c.OutOrStdout(), string(b))
			return nil
		},
	}
	c.Flags().StringVar(&instance, "instance", "", "the instance id")
	c.Flags().StringVar(&benchmark, "benchmark", "swe_bench_verified", "swe_bench_verified, swe_bench_pro or deepswe")
	c.Flags().StringVar(&reference, "reference", "", "the reference patch, the last resort")
	c.Flags().IntVar(&minSupport, "min-support", 2, "runs that must share an edited line")
	c.Flags().IntVar(&maxRegions, "max", 8, "most regions kept")
	c.MarkFlagRequired("instance")
	return c
}

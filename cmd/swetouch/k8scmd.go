package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/eval"
)

// k8sCmd holds what follows `eval --emit k8s` on the way back.
func k8sCmd() *cobra.Command {
	c := &cobra.Command{Use: "k8s", Short: "After eval --emit k8s: collect the Jobs' results"}
	var jobsFile string
	collect := &cobra.Command{
		Use:   "collect RESULTS [--jobs FILE]",
		Short: "Mark every emitted trial without a result.json in RESULTS (copied off the volume) as null: its Job was killed, evicted or never ran",
		Long: "Reads the emitted jobs (RESULTS/jobs/jobs.jsonl by default) and writes, for each trial whose\n" +
			"folder has no result.json, a result with resolved null and reason \"interrupted\", so score counts\n" +
			"it apart as an infrastructure error rather than leaving it out, and eval --emit against the same\n" +
			"folder emits exactly those trials again (docs/scale.md).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if jobsFile == "" {
				jobsFile = filepath.Join(args[0], "jobs", "jobs.jsonl")
			}
			jobs, err := eval.ReadJobs(jobsFile)
			if err != nil {
				return badInput("--jobs: %v", err)
			}
			marked, err := eval.Collect(args[0], jobs)
			for _, j := range marked {
				fmt.Fprintf(c.OutOrStdout(), "null (no result): %s %s\n", j.Name, j.Results)
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch k8s collect: %d of %d trials had no result and are null; eval --emit emits them again\n", len(marked), len(jobs))
			return err
		},
	}
	collect.Flags().StringVar(&jobsFile, "jobs", "", "the emitted jobs.jsonl (default: RESULTS/jobs/jobs.jsonl)")
	c.AddCommand(collect)
	return c
}

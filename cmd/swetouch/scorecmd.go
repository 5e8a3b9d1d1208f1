package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/score"
)

func scoreCmd() *cobra.Command {
	var asJSON, asCSV bool
	c := &cobra.Command{
		Use:   "score DIR... [--json|--csv]",
		Short: "Score runs: resolve rate per agent and condition, Δ against vanilla, retention, the fate of the user's edit",
		Long: "Reads every run folder (result.json, trajectory.jsonl, final.diff) under the given folders,\n" +
			"which may come from many machines. Infrastructure errors (resolved null) are counted apart,\n" +
			"not as failures.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			trials, err := loadTrials(args)
			if err != nil {
				return err
			}
			rows := score.Summarize(trials)
			switch {
			case asJSON:
				b, _ := json.MarshalIndent(rows, "", "  ")
				fmt.Fprintln(c.OutOrStdout(), string(b))
			case asCSV:
				score.WriteCSV(c.OutOrStdout(), rows)
			default:
				score.WriteTable(c.OutOrStdout(), rows)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&asCSV, "csv", false, "print CSV")
	return c
}

// loadTrials reads the run folders under dirs; finding none is bad input.
func loadTrials(dirs []string) ([]score.Trial, error) {
	trials, err := score.Load(dirs...)
	if err != nil {
		return nil, badInput("%v", err)
	}
	if len(trials) == 0 {
		return nil, badInput("no runs (result.json) under %v", dirs)
	}
	return trials, nil
}

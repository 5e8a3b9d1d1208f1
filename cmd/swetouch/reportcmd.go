package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/stats"
)

func reportCmd() *cobra.Command {
	var out, title string
	var timelines []string
	c := &cobra.Command{
		Use:   "report DIR... [--out DIR]",
		Short: "Write a self-contained HTML report (charts, trials, timelines) with its JSON and CSV",
		Long: "Reads every run folder under the given folders, as score does, and writes report.html\n" +
			"(inline SVG charts: resolve rate per condition, Δ per agent, retention, a timeline of every\n" +
			"trial with the interventions marked; no outside resources), report.json, summary.csv and\n" +
			"trials.csv into --out (default: the first DIR).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			trials, err := loadTrials(args, score.WithTimelines())
			if err != nil {
				return err
			}
			if out == "" {
				out = args[0]
			}
			rep := report.New(title, args[0], trials)
			rep.ShowTasks = timelines
			if err := rep.Write(out); err != nil {
				return err
			}
			// the tables score prints, each when it has rows: a folder of
			// conversations alone has no single-turn table
			writeScores(c.OutOrStdout(), rep, rep.Turns, rep.Comparisons, stats.DefaultConfig, trials)
			fmt.Fprintf(c.OutOrStdout(), "\nreport: %s\n", filepath.Join(out, report.HTMLFile))
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "where to write the report (default: the first DIR)")
	c.Flags().StringVar(&title, "title", "swetouch report", "the report's title")
	c.Flags().StringSliceVar(&timelines, "timelines", nil, fmt.Sprintf("the tasks whose trials report.html lists and draws (default: all up to %d trials, past that a sample of tasks; report.json always holds every trial)", report.MaxShown))
	return c
}

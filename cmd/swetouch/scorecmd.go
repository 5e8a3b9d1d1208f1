package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/score"
)

func scoreCmd() *cobra.Command {
	var asJSON, asCSV, trialsToo bool
	c := &cobra.Command{
		Use:   "score DIR... [--json|--csv] [--trials]",
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
			rep := score.NewReport("", ".", trials)
			w := c.OutOrStdout()
			switch {
			case asJSON:
				b, _ := json.MarshalIndent(struct {
					Summary []score.Row        `json:"summary"`
					Ranks   []score.RankChange `json:"rank_changes"`
					Turns   []score.TurnRow    `json:"conversations"`
					Audit   score.AuditSummary `json:"audit"`
					Infra   []score.InfraError `json:"infrastructure_errors"`
				}{rep.Summary, rep.Ranks, score.TurnRows(trials), score.Audits(trials), score.InfraErrors(trials)}, "", "  ")
				fmt.Fprintln(w, string(b))
			case asCSV && trialsToo:
				return rep.WriteTrialsCSV(w)
			case asCSV:
				score.WriteCSV(w, rep.Summary)
			default:
				if len(rep.Summary) > 0 {
					score.WriteTable(w, rep.Summary)
				}
				if len(rep.Ranks) > 0 {
					fmt.Fprintln(w)
					score.WriteRanks(w, rep.Ranks)
				}
				if turns := score.TurnRows(trials); len(turns) > 0 {
					if len(rep.Summary) > 0 {
						fmt.Fprintln(w)
					}
					score.WriteTurnTable(w, turns)
				}
				if a := score.Audits(trials); a.Flagged > 0 {
					fmt.Fprintln(w)
					score.WriteAudit(w, a)
				}
				if errs := score.InfraErrors(trials); len(errs) > 0 {
					fmt.Fprintln(w)
					score.WriteInfraErrors(w, errs)
				}
				if trialsToo {
					fmt.Fprintln(w)
					return rep.WriteTrialsCSV(w)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&asCSV, "csv", false, "print CSV")
	c.Flags().BoolVar(&trialsToo, "trials", false, "also list every trial: fate of the user edit, reads/edits/tests after it (with --csv: only the trials)")
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

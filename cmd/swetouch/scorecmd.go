package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/stats"
)

func scoreCmd() *cobra.Command {
	var asJSON, asCSV, trialsToo bool
	var table string
	var sc stats.Config
	c := &cobra.Command{
		Use:   "score DIR... [--json|--csv] [--trials] [--resamples N] [--seed S]",
		Short: "Score runs: resolve rate per agent and condition with 95% intervals, Δ against vanilla, retention, paired tests, conversations by turn",
		Long: "Reads every run folder (result.json, trajectory.jsonl, final.diff) under the given folders,\n" +
			"which may come from many machines. Infrastructure errors (resolved null) are counted apart,\n" +
			"not as failures. Every rate and difference has a 95% interval from a bootstrap that resamples\n" +
			"tasks (runs stay in their task); conditions against vanilla and agents against each other get\n" +
			"paired permutation tests on per-task differences, BH-adjusted at 5% FDR (docs/metrics.md).\n" +
			"Under a Harbor job folder, Harbor's reward (verifier/reward.json or reward.txt) is read beside\n" +
			"each trial's agent/swetouch/result.json, and a disagreement with swetouch's verdict is a warning\n" +
			"(docs/harbor.md).\n" +
			"A folder of 1,000 trials or more keeps an index of them (score-index.jsonl, and\n" +
			"score-timelines.jsonl for report), written by the first score or report over it and trusted\n" +
			"only for files whose size, time and inode are unchanged (docs/scale.md);\n" +
			"SWETOUCH_REFERENCE=1 reads every file instead.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			trials, err := loadTrials(args)
			if err != nil {
				return err
			}
			if sc.Resamples < 1 {
				return badInput("--resamples: want at least 1, got %d", sc.Resamples)
			}
			harbor, err := score.HarborRewards(trials)
			if err != nil {
				return badInput("%v", err)
			}
			rep := report.New("", ".", trials, score.WithStats(sc))
			w := c.OutOrStdout()
			switch {
			case asJSON:
				writeScoresJSON(w, rep, sc, trials, harbor)
			case asCSV && trialsToo:
				return rep.WriteTrialsCSV(w)
			case asCSV:
				return writeScoresCSV(w, rep, table, trials)
			default:
				writeScores(w, rep, rep.Turns, rep.Comparisons, sc, trials)
				if len(harbor) > 0 {
					fmt.Fprintln(w)
					score.WriteHarbor(w, harbor)
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
	c.Flags().StringVar(&table, "table", "summary", "with --csv: summary, turns (conversations, a line per budget k), comparisons (the paired tests) or costs (calls and tokens)")
	c.Flags().BoolVar(&trialsToo, "trials", false, "also list every trial: fate of the user edit, reads/edits/tests after it (with --csv: only the trials)")
	c.Flags().IntVar(&sc.Resamples, "resamples", stats.DefaultConfig.Resamples, "bootstrap and Monte Carlo permutation resamples")
	c.Flags().Uint64Var(&sc.Seed, "seed", stats.DefaultConfig.Seed, "the resampling's seed")
	sc.ExactUpTo = stats.DefaultConfig.ExactUpTo
	return c
}

// writeScoresJSON prints every table of score's as one JSON object.
func writeScoresJSON(w io.Writer, rep *report.Report, sc stats.Config, trials []score.Trial, harbor harborRewards) {
	turns, paper := rep.Turns, score.PaperRows(trials)
	b, _ := json.MarshalIndent(struct {
		Stats       stats.Config        `json:"stats"`
		Summary     []score.Row         `json:"summary"`
		Ranks       []score.RankChange  `json:"rank_changes"`
		Turns       []score.TurnRow     `json:"conversations"`
		UserSWE     []score.UserSWERow  `json:"userswe"`
		BudgetRanks []score.BudgetRank  `json:"ranks_by_budget"`
		Comparisons []score.Comparison  `json:"comparisons"`
		Costs       []score.CostRow     `json:"costs"`
		Audit       score.AuditSummary  `json:"audit"`
		Infra       []score.InfraError  `json:"infrastructure_errors"`
		Paper       []score.PaperRow    `json:"paper"`
		PaperRho    []score.Correlation `json:"revision_correlations"`
		Harbor      harborRewards       `json:"harbor,omitempty"`
	}{sc, rep.Summary, rep.Ranks, turns, score.UserSWERows(trials), score.BudgetRanks(turns), rep.Comparisons, score.Costs(trials), score.Audits(trials), score.InfraErrors(trials),
		paper, score.RevisionCorrelations(rep.Summary, paper), harbor}, "", "  ")
	fmt.Fprintln(w, string(b))
}

// writeScoresCSV prints one of score's tables as CSV (--table).
func writeScoresCSV(w io.Writer, rep *report.Report, table string, trials []score.Trial) error {
	switch table {
	case "summary":
		score.WriteCSV(w, rep.Summary)
	case "turns":
		score.WriteTurnCSV(w, rep.Turns)
	case "comparisons":
		score.WriteComparisonsCSV(w, rep.Comparisons)
	case "costs":
		score.WriteCostsCSV(w, score.Costs(trials))
	default:
		return badInput("--table: want summary, turns, comparisons or costs, got %q", table)
	}
	return nil
}

// writeScores prints the score tables: single-turn rows and their rank
// changes, the conversations by turn, the paired tests, the audit, the
// infrastructure errors.
func writeScores(w io.Writer, rep *report.Report, turns []score.TurnRow, cmp []score.Comparison, sc stats.Config, trials []score.Trial) {
	sections := 0
	next := func() {
		if sections > 0 {
			fmt.Fprintln(w)
		}
		sections++
	}
	if len(rep.Summary) > 0 {
		next()
		score.WriteTable(w, rep.Summary)
	}
	if len(rep.Ranks) > 0 {
		next()
		score.WriteRanks(w, rep.Ranks)
	}
	if paper := score.PaperRows(trials); len(paper) > 0 {
		next()
		score.WritePaper(w, paper, score.RevisionCorrelations(rep.Summary, paper))
	}
	if len(turns) > 0 {
		next()
		score.WriteTurnTable(w, turns)
		score.WriteBudgetRanks(w, score.BudgetRanks(turns))
		next()
		score.WriteUserSWE(w, score.UserSWERows(trials))
	}
	if len(cmp) > 0 {
		next()
		score.WriteComparisons(w, cmp, sc)
	}
	if costs := score.Costs(trials); len(costs) > 0 {
		next()
		score.WriteCosts(w, costs)
	}
	if a := score.Audits(trials); a.Flagged > 0 {
		next()
		score.WriteAudit(w, a)
	}
	if errs := score.InfraErrors(trials); len(errs) > 0 {
		next()
		score.WriteInfraErrors(w, errs)
	}
}

// harborRewards are Harbor's verdicts beside swetouch's (score.HarborRewards).
type harborRewards = []score.HarborReward

// loadTrials reads the run folders under dirs, each through its index
// (score.WithIndex); finding none is bad input.
func loadTrials(dirs []string, opts ...score.ReadOption) ([]score.Trial, error) {
	trials, err := score.Read(dirs, append(opts, score.WithIndex())...)
	if err != nil {
		return nil, badInput("%v", err)
	}
	if len(trials) == 0 {
		return nil, badInput("no runs (result.json) under %v", dirs)
	}
	return trials, nil
}

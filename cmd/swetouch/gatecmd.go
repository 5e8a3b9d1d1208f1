package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

func gateCmd() *cobra.Command {
	var taskDir, records, instance, diffFile, candidate, candidatesFile, out, logs string
	var noSandbox bool
	c := &cobra.Command{
		Use:   "gate --task DIR (--records FILE [--instance ID] | --candidates FILE | --diff FILE [--candidate ID]) [--out FILE] [--logs DIR]",
		Short: "Validate Counter-Edits with the task's tests: reference resolves, edit alone does not, edit then reference does not",
		Long: "Runs the three states on fresh workspaces and writes gate-results-v1 JSON (stdout, or --out).\n" +
			"Exit 0 when every candidate passes, 1 when one fails or has a state that could not run\n" +
			"(resolved null: a patch that does not apply, a failing reference, a broken verifier), 2 on bad input.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			t, err := task.Load(taskDir)
			if err != nil {
				return badInput("--task: %v", err)
			}
			id := instance
			if id == "" {
				id = t.Name
			}
			type cand struct{ id, diff string }
			var cands []cand
			switch {
			case diffFile != "":
				b, err := os.ReadFile(diffFile)
				if err != nil {
					return badInput("--diff: %v", err)
				}
				cands = append(cands, cand{orDefault(candidate, "candidate"), string(b)})
			case records != "":
				recs, err := task.LoadRecords(records)
				if err != nil {
					return badInput("%v", err)
				}
				rec, err := task.Find(recs, id)
				if err != nil {
					return badInput("--instance: %v", err)
				}
				seen := map[string]bool{}
				for _, iv := range rec.CounterEdit.Interventions {
					if iv.Patch != nil && !seen[iv.Patch.ID] {
						seen[iv.Patch.ID] = true
						cands = append(cands, cand{iv.Patch.ID, iv.Patch.Diff})
					}
				}
			case candidatesFile != "":
				var doc author.Candidates
				if err := readJSONFile(candidatesFile, &doc); err != nil {
					return err
				}
				for i, cd := range doc.Candidates {
					if cd.CandidateID == "" || !strings.HasPrefix(cd.Diff, "diff --git ") {
						return badInput("%s: field candidates[%d]: want a candidate_id and a diff starting with \"diff --git \"", candidatesFile, i)
					}
					if instance == "" && cd.InstanceID != "" {
						id = cd.InstanceID
					}
					cands = append(cands, cand{cd.CandidateID, cd.Diff})
				}
			default:
				return badInput("give --records, --candidates or --diff")
			}
			// the tests run candidate code (a generator agent's edit):
			// sandboxed as a trial's verifier is
			sb, err := sandboxFlag(noSandbox)
			if err != nil {
				return err
			}
			res := author.GateResults{SchemaVersion: "1.0.0", Candidates: []author.Candidate{}}
			all := true
			for _, cd := range cands {
				g := author.Gate(context.Background(), t, id, cd.id, cd.diff, logs, task.WithSandbox(sb))
				res.Candidates = append(res.Candidates, g)
				p := g.Passes()
				all = all && p != nil && *p
				fmt.Fprintf(c.ErrOrStderr(), "swetouch gate: %s %s: passes=%s\n", id, cd.id, result.ShowResolved(p))
			}
			b, _ := json.MarshalIndent(res, "", "  ")
			if out != "" {
				if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(c.OutOrStdout(), string(b))
			}
			if !all {
				return exitError{1}
			}
			return nil
		},
	}
	c.Flags().StringVar(&taskDir, "task", "", "the task (Harbor directory or task file)")
	c.Flags().StringVar(&records, "records", "", "dataset-record-v1 JSONL whose Counter-Edits to validate")
	c.Flags().StringVar(&instance, "instance", "", "record instance id (default: the task's name)")
	c.Flags().StringVar(&candidatesFile, "candidates", "", "candidates-v1 JSON whose Counter-Edits to validate")
	c.Flags().StringVar(&diffFile, "diff", "", "a candidate Counter-Edit diff to validate instead")
	c.Flags().StringVar(&candidate, "candidate", "", "the candidate's id (with --diff)")
	c.Flags().StringVar(&out, "out", "", "write gate-results-v1 here instead of stdout")
	c.Flags().StringVar(&logs, "logs", "", "keep each state's verifier log here")
	c.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run the tests without isolation")
	c.MarkFlagRequired("task")
	return c
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

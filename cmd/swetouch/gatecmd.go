package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

// gateOptions is `swetouch gate`: its flags, and its run over them.
type gateOptions struct {
	taskDir, records, instance, diffFile, candidate, candidatesFile, out, logs string
	noSandbox, strictReference                                                 bool
}

func gateCmd() *cobra.Command {
	var o gateOptions
	c := &cobra.Command{
		Use:   "gate --task DIR (--records FILE [--instance ID] | --candidates FILE | --diff FILE [--candidate ID]) [--out FILE] [--logs DIR]",
		Short: "Validate Counter-Edits with the task's tests: reference resolves, edit alone does not, edit then reference does not",
		Long: "Runs the three states on fresh workspaces and writes gate-results-v1 JSON (stdout, or --out).\n" +
			"Exit 0 when every candidate passes, 1 when one fails or has a state that could not run\n" +
			"(resolved null: a patch that does not apply, a failing reference, a broken verifier), 2 on bad input.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	c.MarkFlagRequired("task")
	return c
}

func (o *gateOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.taskDir, "task", "", "the task (Harbor directory or task file)")
	fs.StringVar(&o.records, "records", "", "dataset-record-v1 JSONL whose Counter-Edits to validate")
	fs.StringVar(&o.instance, "instance", "", "record instance id (default: the task's name)")
	fs.StringVar(&o.candidatesFile, "candidates", "", "candidates-v1 JSON whose Counter-Edits to validate")
	fs.StringVar(&o.diffFile, "diff", "", "a candidate Counter-Edit diff to validate instead")
	fs.StringVar(&o.candidate, "candidate", "", "the candidate's id (with --diff)")
	fs.StringVar(&o.out, "out", "", "write gate-results-v1 here instead of stdout")
	fs.StringVar(&o.logs, "logs", "", "keep each state's verifier log here")
	fs.BoolVar(&o.noSandbox, "no-sandbox", false, "run the tests without isolation")
	fs.BoolVar(&o.strictReference, "strict-reference", false, "a reference that no longer applies after the edit is no verdict (the paper keeps such edits: reference_repair_apply_conflict)")
}

func (o *gateOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	t, err := task.Load(o.taskDir)
	if err != nil {
		return badInput("--task: %v", err)
	}
	id, ps, err := o.proposals(t.Name)
	if err != nil {
		return err
	}
	// the tests run candidate code (a generator agent's edit):
	// sandboxed as a trial's verifier is
	sb, err := sandboxFlag(o.noSandbox)
	if err != nil {
		return err
	}
	res, all := author.GateAll(ctx, t, id, ps, o.logs, func(g author.Candidate) {
		conflict := ""
		if g.Conflict() {
			conflict = " (" + author.StatusConflict + ")"
		}
		fmt.Fprintf(stderr, "swetouch gate: %s %s: passes=%s%s\n", id, g.CandidateID, result.ShowResolved(g.Verdict(o.strictReference)), conflict)
	}, task.WithSandbox(sb))
	if o.strictReference {
		for _, g := range res.Candidates {
			if p := g.Verdict(true); p == nil || !*p {
				all = false
			}
		}
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if o.out != "" {
		if err := os.WriteFile(o.out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, string(b))
	}
	if !all {
		return exitError{1}
	}
	return nil
}

// proposals is the instance gated and its candidates, from whichever of
// --diff, --records and --candidates was given.
func (o *gateOptions) proposals(taskName string) (string, []author.Proposal, error) {
	id := orDefault(o.instance, taskName)
	switch {
	case o.diffFile != "":
		b, err := os.ReadFile(o.diffFile)
		if err != nil {
			return "", nil, badInput("--diff: %v", err)
		}
		return id, []author.Proposal{{ID: orDefault(o.candidate, "candidate"), Diff: string(b)}}, nil
	case o.records != "":
		recs, err := task.LoadRecords(o.records)
		if err != nil {
			return "", nil, badInput("%v", err)
		}
		rec, err := task.Find(recs, id)
		if err != nil {
			return "", nil, badInput("--instance: %v", err)
		}
		return id, author.RecordProposals(rec), nil
	case o.candidatesFile != "":
		var doc author.Candidates
		if err := readJSONFile(o.candidatesFile, &doc); err != nil {
			return "", nil, err
		}
		ps, inst, err := doc.Proposals()
		if err != nil {
			return "", nil, badInput("%s: %v", o.candidatesFile, err)
		}
		if o.instance == "" && inst != "" {
			id = inst
		}
		return id, ps, nil
	default:
		return "", nil, badInput("give --records, --candidates or --diff")
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/author"
)

// assembleOptions is `swetouch assemble`: its flags, and its run over
// them.
type assembleOptions struct {
	paper                                                               paperFlags
	regionsFile, candidatesFile, gateFile, helpfulFile, out, firstEvent string
	k                                                                   int
}

func assembleCmd() *cobra.Command {
	var o assembleOptions
	c := &cobra.Command{
		Use:   "assemble --regions FILE [--candidates FILE --gate FILE] [--k 3] [--first-event read_or_edit] [--out FILE]",
		Short: "Assemble a dataset-record-v1 record from mined regions, Counter-Edit candidates and their gate results",
		Long: "Candidates pass when their gate results say so (reference alone resolves, the edit alone and\n" +
			"the edit then the reference do not); flags in the inputs are not trusted. The accepted ones fill\n" +
			"the K interventions in candidate order, the last repeating; with none the record is text-only.\n" +
			"The record is written with sorted keys: one line when --out ends in .jsonl (appended), else\n" +
			"indented (stdout without --out). Exit 2 on bad input, naming the file and field.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	c.MarkFlagRequired("regions")
	return c
}

func (o *assembleOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.regionsFile, "regions", "", "critical-regions-v1 JSON (from swetouch mine)")
	fs.StringVar(&o.candidatesFile, "candidates", "", "candidates-v1 JSON")
	fs.StringVar(&o.gateFile, "gate", "", "gate-results-v1 JSON (from swetouch gate)")
	fs.StringVar(&o.helpfulFile, "helpful", "", "helpful edits (swetouch generate --helpful): the first that passes its gate becomes the Co-Edit control")
	fs.StringVar(&o.out, "out", "", "write here (.jsonl: append one line)")
	fs.StringVar(&o.firstEvent, "first-event", "read_or_edit", "the first intervention's trigger event: read, edit or read_or_edit")
	fs.IntVar(&o.k, "k", 3, "interventions per record")
	o.paper.bind(fs)
}

func (o *assembleOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	var regions author.Regions
	if err := readJSONFile(o.regionsFile, &regions); err != nil {
		return err
	}
	var cands *author.Candidates
	var gate *author.GateResults
	if o.candidatesFile != "" {
		cands = &author.Candidates{}
		if err := readJSONFile(o.candidatesFile, cands); err != nil {
			return err
		}
	}
	if o.gateFile != "" {
		gate = &author.GateResults{}
		if err := readJSONFile(o.gateFile, gate); err != nil {
			return err
		}
	}
	cfg := author.AssembleConfig{K: o.k, FirstEvent: o.firstEvent}
	if err := o.paper.apply(&cfg); err != nil {
		return err
	}
	if o.helpfulFile != "" {
		var doc author.Generated
		if err := readJSONFile(o.helpfulFile, &doc); err != nil {
			return err
		}
		if doc.Kind != author.HelpfulEdit {
			return badInput("--helpful %s: field kind: %q, want the output of swetouch generate --helpful", o.helpfulFile, doc.Kind)
		}
		for _, e := range doc.Candidates {
			cfg.Helpful = append(cfg.Helpful, author.Gated{Candidate: e.CandidateRecord, Gate: e.Gate})
		}
	}
	rec, err := author.Assemble(&regions, cands, gate, cfg)
	if err != nil {
		return badInput("%v", err)
	}
	b, err := author.MarshalSorted(rec)
	if err != nil {
		return err
	}
	if o.out != "" && strings.HasSuffix(o.out, ".jsonl") {
		return appendRaw(o.out, b)
	}
	var ind bytes.Buffer
	json.Indent(&ind, b, "", "  ")
	ind.WriteByte('\n')
	if o.out == "" {
		_, err := stdout.Write(ind.Bytes())
		return err
	}
	if err := os.WriteFile(o.out, ind.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "swetouch assemble: %s (%s, %d interventions)\n", o.out, rec.CounterEdit.Mode, len(rec.CounterEdit.Interventions))
	return nil
}

// appendRaw appends b and a newline to a file.
func appendRaw(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

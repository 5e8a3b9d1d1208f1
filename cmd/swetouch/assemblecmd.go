package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/swetouch/swetouch/author"
)

func assembleCmd() *cobra.Command {
	var regionsFile, candidatesFile, gateFile, helpfulFile, out, firstEvent string
	var k int
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
			var regions author.Regions
			if err := readJSONFile(regionsFile, &regions); err != nil {
				return err
			}
			var cands *author.Candidates
			var gate *author.GateResults
			if candidatesFile != "" {
				cands = &author.Candidates{}
				if err := readJSONFile(candidatesFile, cands); err != nil {
					return err
				}
			}
			if gateFile != "" {
				gate = &author.GateResults{}
				if err := readJSONFile(gateFile, gate); err != nil {
					return err
				}
			}
			cfg := author.AssembleConfig{K: k, FirstEvent: firstEvent}
			if helpfulFile != "" {
				var doc author.Generated
				if err := readJSONFile(helpfulFile, &doc); err != nil {
					return err
				}
				if doc.Kind != author.HelpfulEdit {
					return badInput("--helpful %s: field kind: %q, want the output of swetouch generate --helpful", helpfulFile, doc.Kind)
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
			if out != "" && strings.HasSuffix(out, ".jsonl") {
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					return err
				}
				if _, err := f.Write(append(b, '\n')); err != nil {
					f.Close()
					return err
				}
				return f.Close()
			}
			var ind bytes.Buffer
			json.Indent(&ind, b, "", "  ")
			ind.WriteByte('\n')
			if out == "" {
				_, err := c.OutOrStdout().Write(ind.Bytes())
				return err
			}
			if err := os.WriteFile(out, ind.Bytes(), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch assemble: %s (%s, %d interventions)\n", out, rec.CounterEdit.Mode, len(rec.CounterEdit.Interventions))
			return nil
		},
	}
	c.Flags().StringVar(&regionsFile, "regions", "", "critical-regions-v1 JSON (from swetouch mine)")
	c.Flags().StringVar(&candidatesFile, "candidates", "", "candidates-v1 JSON")
	c.Flags().StringVar(&gateFile, "gate", "", "gate-results-v1 JSON (from swetouch gate)")
	c.Flags().StringVar(&helpfulFile, "helpful", "", "helpful edits (swetouch generate --helpful): the first that passes its gate becomes the Co-Edit control")
	c.Flags().StringVar(&out, "out", "", "write here (.jsonl: append one line)")
	c.Flags().StringVar(&firstEvent, "first-event", "read_or_edit", "the first intervention's trigger event: read, edit or read_or_edit")
	c.Flags().IntVar(&k, "k", 3, "interventions per record")
	c.MarkFlagRequired("regions")
	return c
}

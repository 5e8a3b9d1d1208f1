package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

// sizesCmd is SWE-Touch's Table 2 from records files: the mean size of
// the Counter-Edits per benchmark, and of the reference repairs where a
// SWE-bench instances file gives them (its "patch" by instance_id).
func sizesCmd() *cobra.Command {
	var refs string
	var asJSON bool
	c := &cobra.Command{
		Use:   "sizes FILE.jsonl... [--references INSTANCES.jsonl] [--json]",
		Short: "Table 2: the mean lines and files of each benchmark's Counter-Edits and reference repairs",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ref := map[string]string{}
			if refs != "" {
				var err error
				if ref, err = readReferences(refs); err != nil {
					return err
				}
			}
			var in []score.SizeInput
			for _, path := range args {
				recs, err := task.LoadRecords(path)
				if err != nil {
					return badInput("%v", err)
				}
				for _, r := range recs {
					s := score.SizeInput{Benchmark: r.Benchmark}
					for _, iv := range r.CounterEdit.Interventions {
						if iv.Patch != nil {
							s.Counter = append(s.Counter, iv.Patch.Diff)
						}
					}
					for id, p := range ref {
						if task.SameInstance(id, r.InstanceID) {
							s.Reference = p
							break
						}
					}
					in = append(in, s)
				}
			}
			rows := score.PatchSizes(in)
			if asJSON {
				b, _ := json.MarshalIndent(rows, "", "  ")
				fmt.Fprintln(c.OutOrStdout(), string(b))
				return nil
			}
			score.WritePatchSizes(c.OutOrStdout(), rows)
			return nil
		},
	}
	c.Flags().StringVar(&refs, "references", "", "a SWE-bench instances JSONL file (instance_id, patch): the reference repairs' sizes")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// readReferences reads instance_id → patch from a SWE-bench instances
// file; a bad line is bad input naming the file, line and field.
func readReferences(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput("--references: %v", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var inst struct {
			ID    *string `json:"instance_id"`
			Patch *string `json:"patch"`
		}
		if err := json.Unmarshal(sc.Bytes(), &inst); err != nil {
			return nil, badInput("%s:%d: %v", path, n, err)
		}
		switch {
		case inst.ID == nil:
			return nil, badInput("%s:%d: instance_id: missing", path, n)
		case inst.Patch == nil:
			return nil, badInput("%s:%d: patch: missing", path, n)
		}
		out[*inst.ID] = *inst.Patch
	}
	if err := sc.Err(); err != nil {
		return nil, badInput("%s: %v", path, err)
	}
	return out, nil
}

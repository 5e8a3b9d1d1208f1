package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

func policyCmd() *cobra.Command {
	c := &cobra.Command{Use: "policy", Short: "Policy decisions"}
	var records, instance, match, condition string
	var asJSON bool
	sim := &cobra.Command{
		Use:   "simulate --records FILE.jsonl --instance ID [--match reference|precise] [--condition C] [--json] TRAJECTORY",
		Short: "List the interventions that would fire on a recorded trajectory (each attempt assumed to apply)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := policy.ParseMatch(match)
			if err != nil {
				return badInput("--match: %v", err)
			}
			cond, err := policy.ParseCondition(condition)
			if err != nil {
				return badInput("--condition: %v", err)
			}
			recs, err := task.LoadRecords(records)
			if err != nil {
				return badInput("%v", err)
			}
			rec, err := task.Find(recs, instance)
			if err != nil {
				return badInput("--instance: %v", err)
			}
			f, err := os.Open(args[0])
			if err != nil {
				return badInput("%v", err)
			}
			defer f.Close()
			tr, err := trajectory.Read(f, args[0])
			if err != nil {
				return badInput("%v", err)
			}
			p, err := policy.New(rec, policy.WithMatch(m), policy.WithCondition(cond))
			if err != nil {
				return badInput("%v", err)
			}
			fired := policy.Simulate(p, tr.Events)
			if asJSON {
				b, _ := json.Marshal(fired)
				fmt.Fprintln(c.OutOrStdout(), string(b))
				return nil
			}
			for _, x := range fired {
				fmt.Fprintf(c.OutOrStdout(), "order %d\tstep %d\t%s\t%s:%d-%d\n", x.Order, x.Step, x.Event, x.Path, x.Start, x.End)
			}
			return nil
		},
	}
	sim.Flags().StringVar(&records, "records", "", "SWE-Touch dataset-record-v1 JSONL")
	sim.Flags().StringVar(&instance, "instance", "", "instance id")
	sim.Flags().StringVar(&match, "match", "reference", "reference or precise")
	sim.Flags().StringVar(&condition, "condition", "counter-edit", "vanilla, counter-edit, co-edit, message-only or code-only")
	sim.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	sim.MarkFlagRequired("records")
	sim.MarkFlagRequired("instance")
	c.AddCommand(sim)
	return c
}

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/task"
)

// recordsCmd checks a records file whole: loading one (run, eval, policy
// simulate) stops at its first fault, and its author wants them all.
func recordsCmd() *cobra.Command {
	c := &cobra.Command{Use: "records", Short: "Work with SWE-Touch records files"}
	check := &cobra.Command{
		Use:   "check FILE.jsonl",
		Short: "Check every record of a file (schema, every diff parsed, every path); exit 0 when clean, 2 listing every fault",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return badInput("%v", err)
			}
			defer f.Close()
			n, faults := task.CheckRecords(f, args[0])
			out := c.OutOrStdout()
			for _, e := range faults {
				fmt.Fprintln(out, e)
			}
			if len(faults) == 0 {
				fmt.Fprintf(out, "%s: %d %s, no faults\n", args[0], n, plural(n, "record"))
				return nil
			}
			fmt.Fprintf(out, "%s: %d records, %d %s\n", args[0], n, len(faults), plural(len(faults), "fault"))
			return exitError{2}
		},
	}
	c.AddCommand(check, sizesCmd())
	return c
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// emitHandled are the flags eval and run share that an emitted trial's
// command sets itself (the task, records, results folder, agent and
// model, each rewritten to where it is in the pod), or that are eval's
// alone in meaning: eval's --image is the Job's image, where run's is the
// container a trial starts (which refuses it without --runtime: every
// Job failed so on a real cluster).
var emitHandled = []string{"task", "records", "out", "agent", "agent-name", "model-url", "model", "condition", "help", "image"}

// runFlagsOf are the flags the user gave eval that run also takes, as
// run's arguments, so an emitted trial runs as a local one would (issue
// 54: --no-sandbox was dropped from the Jobs' command). A flag given more
// than once (a list) is repeated.
func runFlagsOf(evalCmd *cobra.Command) []string {
	run := runCmd().Flags()
	var out []string
	evalCmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(emitHandled, f.Name) || run.Lookup(f.Name) == nil {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, fmt.Sprintf("--%s=%s", f.Name, v))
			}
			return
		}
		out = append(out, fmt.Sprintf("--%s=%s", f.Name, f.Value.String()))
	})
	return out
}

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/user/conversation"
)

// personasCmd works with persona transition models: `fit` calibrates
// one from real conversations labelled by persona (UserSWE U7), where
// the shipped model is hand-set priors.
func personasCmd() *cobra.Command {
	c := &cobra.Command{Use: "personas", Short: "Work with the persona transition model of multi-turn tasks"}
	var out string
	var smoothing float64
	fit := &cobra.Command{
		Use:   "fit SESSIONS",
		Short: "Fit a persona transition model (for --personas) from a folder of conversations labelled by persona",
		Long: "SESSIONS is " + conversation.SessionsFormat + ".\n" +
			"The model is fitted by maximum likelihood, one matrix per opening persona as UserSWE calibrates it;\n" +
			"its provenance says from what. The shipped model is hand-set priors (user/conversation/personas.md).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			sessions, err := conversation.ReadSessions(args[0])
			if err != nil {
				return badInput("SESSIONS: %v", err)
			}
			m, err := conversation.Fit(sessions, smoothing, args[0])
			if err != nil {
				return badInput("--smoothing: %v", err)
			}
			for _, line := range m.Summary() {
				fmt.Fprintln(c.ErrOrStderr(), "swetouch personas fit: "+line)
			}
			b := conversation.MarshalModel(m)
			if out == "" {
				_, err := c.OutOrStdout().Write(b)
				return err
			}
			if err := atomicfile.WriteBytes(out, 0o644, b); err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch personas fit: %d sessions; %s (use it with --personas %s)\n", len(sessions), out, out)
			return nil
		},
	}
	fit.Flags().StringVar(&out, "out", "", "write the model here (default: stdout)")
	fit.Flags().Float64Var(&smoothing, "smoothing", 0, "add this weight to every move of a row that has data (Laplace smoothing; 0: none)")
	c.AddCommand(fit)
	return c
}

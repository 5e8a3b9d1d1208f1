package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/cascade"
)

// cascadesCmd is `swetouch cascades --repo GIT`: UserSWE's two-issue
// cascades (U1) proposed from a repository's history.
func cascadesCmd() *cobra.Command {
	var repo, out string
	var o cascade.Options
	c := &cobra.Command{
		Use:   "cascades --repo GIT [--out DIR]",
		Short: "Propose two-issue cascades (UserSWE U1) from a repository's history: a fix, and a later one that names it or changes its lines, each with its tests",
		Long: "Reads the mainline (first-parent) history of --repo (a checkout or a git directory). A fix is a\n" +
			"change that adds test functions and says it fixes something; a later fix within --window changes is\n" +
			"its cascade's second phase when its message names an issue or pull request the first fixed, or it\n" +
			"changes at least --min-touched lines the first wrote. Each proposal has its base (the first fix's\n" +
			"parent), both fixes as diffs that apply in turn (p1.diff, p2.diff), each phase's tests (their\n" +
			"names, and tests-p1.diff, tests-p2.diff) and the phases in conversation.json's shape: build the task\n" +
			"around them, then run swetouch check on it.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if st, err := os.Stat(repo); err != nil || !st.IsDir() {
				return badInput("--repo %s: not a folder", repo)
			}
			o.Context = context.Background()
			ps, err := cascade.Mine(repo, o)
			if err != nil {
				return badInput("--repo: %v", err)
			}
			w := c.OutOrStdout()
			for _, p := range ps {
				var links []string
				for _, l := range p.Links {
					links = append(links, l.Kind+" "+l.Detail)
				}
				fmt.Fprintf(w, "%.10s %q → %.10s %q (base %.10s; tests %s | %s; %s)\n", p.First.Commit, p.First.Subject, p.Second.Commit, p.Second.Subject,
					p.Base, strings.Join(p.Phases[0].Acceptance, " "), strings.Join(p.Phases[1].Acceptance, " "), strings.Join(links, ", "))
			}
			if out != "" {
				dirs, err := cascade.Write(out, ps)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.ErrOrStderr(), "swetouch cascades: %d proposals in %s\n", len(dirs), out)
			} else {
				fmt.Fprintf(c.ErrOrStderr(), "swetouch cascades: %d proposals\n", len(ps))
			}
			return nil
		},
	}
	c.Flags().StringVar(&repo, "repo", "", "the repository (a checkout or a git directory)")
	c.Flags().StringVar(&o.Rev, "rev", "", "where the history starts (default HEAD)")
	c.Flags().IntVar(&o.Max, "max", 400, "mainline changes to read")
	c.Flags().IntVar(&o.Window, "window", 200, "how many changes later a second fix may come")
	c.Flags().IntVar(&o.MinTouched, "min-touched", 2, "lines of the first fix the second must change to be linked by them alone")
	c.Flags().StringVar(&out, "out", "", "write each proposal in a folder of its own here (cascade.json and its diffs)")
	c.MarkFlagRequired("repo")
	return c
}

package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/shell"
)

type classifyItem struct {
	Kind      string `json:"kind"`
	Path      string `json:"path,omitempty"`
	Start     int    `json:"start,omitempty"`
	End       int    `json:"end,omitempty"`
	Precision string `json:"precision,omitempty"`
}

func classifyCmd() *cobra.Command {
	var cwd, root, output string
	var asJSON bool
	c := &cobra.Command{
		Use:   "classify [--cwd DIR] [--root DIR] [--json] -- COMMAND",
		Short: "Classify a shell command into read/edit/test/run scopes",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts := []shell.Option{shell.WithRoot(root), shell.WithCwd(cwd)}
			if root != "" {
				opts = append(opts, shell.WithFiles(shell.DirSource(root)))
			}
			cmd := strings.Join(args, " ")
			s := shell.NewSession(opts...)
			var r *shell.Result
			if c.Flags().Changed("output") {
				r = s.ClassifyOutput(cmd, shell.Observation{Text: output})
			} else {
				r = s.Classify(cmd)
			}
			items := []classifyItem{}
			for _, k := range r.Kinds() {
				scopes := r.Scopes(k)
				if len(scopes) == 0 {
					items = append(items, classifyItem{Kind: string(k)})
				}
				for _, sc := range scopes {
					items = append(items, classifyItem{string(k), sc.Path, sc.Start, sc.End, string(sc.Precision)})
				}
			}
			if r.Fallback {
				fmt.Fprintln(c.ErrOrStderr(), "swetouch: parser rejected the command, token rules used:", r.Err)
			}
			if asJSON {
				b, _ := json.Marshal(items)
				fmt.Fprintln(c.OutOrStdout(), string(b))
				return nil
			}
			for _, it := range items {
				switch {
				case it.Path == "":
					fmt.Fprintln(c.OutOrStdout(), it.Kind)
				case it.Precision == "line":
					fmt.Fprintf(c.OutOrStdout(), "%s\t%s:%d-%d\n", it.Kind, it.Path, it.Start, it.End)
				default:
					fmt.Fprintf(c.OutOrStdout(), "%s\t%s\n", it.Kind, it.Path)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&cwd, "cwd", "", "working directory the command starts in")
	c.Flags().StringVar(&root, "root", "", "workspace root (stripped from paths; its files resolve scopes)")
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON list of {kind, path, start, end, precision}")
	c.Flags().StringVar(&output, "output", "", "the command's observed output, for output-derived scopes")
	return c
}

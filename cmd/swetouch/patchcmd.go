package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/patch"
)

func patchCmd() *cobra.Command {
	c := &cobra.Command{Use: "patch", Short: "Apply unified diffs in process"}
	var dir string
	var asJSON, dry bool
	apply := &cobra.Command{
		Use:   "apply [--dir DIR] [--json] [--dry-run] FILE.diff",
		Short: "Apply a diff; exit 0 when every hunk landed, 1 when some failed (files untouched), 2 on bad input",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return badInput("%v", err)
			}
			fds, err := patch.Parse(string(data))
			var pe *patch.ParseError
			if errors.As(err, &pe) {
				return badInput("%s:%d: %s", args[0], pe.Line, pe.Msg)
			}
			if err != nil {
				return badInput("%s: %v", args[0], err)
			}
			var opts []patch.Option
			if dry {
				opts = append(opts, patch.DryRun())
			}
			rep, err := patch.Apply(patch.Dir(dir), fds, opts...)
			var esc *patch.EscapeError
			if errors.As(err, &esc) {
				// bad input, named where it is; Apply wrote nothing
				line := 1
				for _, fd := range fds {
					if fd.OldPath == esc.Path || fd.NewPath == esc.Path {
						line = fd.Line
						break
					}
				}
				return badInput("%s:%d: %v", args[0], line, err)
			}
			if err != nil {
				return err
			}
			if asJSON {
				b, _ := json.MarshalIndent(rep, "", "  ")
				fmt.Fprintln(c.OutOrStdout(), string(b))
			} else {
				for _, h := range rep.Hunks {
					switch h.Method {
					case patch.Failed:
						fmt.Fprintf(c.OutOrStdout(), "%s hunk %d: failed: %s\n", h.File, h.Hunk, h.Error)
					default:
						fmt.Fprintf(c.OutOrStdout(), "%s hunk %d: %s at lines %d-%d\n", h.File, h.Hunk, h.Method, h.Start, h.End)
					}
				}
			}
			if !rep.Applied {
				return exitError{1}
			}
			return nil
		},
	}
	apply.Flags().StringVar(&dir, "dir", ".", "directory the diff's paths are relative to")
	apply.Flags().BoolVar(&asJSON, "json", false, "print the per-hunk report as JSON")
	apply.Flags().BoolVar(&dry, "dry-run", false, "report without writing")
	c.AddCommand(apply)
	return c
}

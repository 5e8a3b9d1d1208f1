package main

import (
	"os"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/shell"
)

func importCmd() *cobra.Command {
	var format, root string
	c := &cobra.Command{
		Use:   "import [--format auto|mini-swe-agent-1|mini-swe-agent-2] [--root DIR] FILE",
		Short: "Convert a mini-swe-agent trajectory into swetouch trajectory NDJSON on stdout",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case replay.FormatAuto, replay.MiniSWE1, replay.MiniSWE2:
			default:
				return badInput("--format %q: want auto, %s or %s", format, replay.MiniSWE1, replay.MiniSWE2)
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return badInput("%v", err)
			}
			o := replay.ImportOptions{Format: format}
			if root != "" {
				o.Shell = append(o.Shell, shell.WithRoot(root), shell.WithBase(shell.DirSource(root)))
			}
			t, err := replay.ImportMiniSWEAgent(data, args[0], o)
			if err != nil {
				return usageError{err}
			}
			w, err := trajectory.NewWriter(c.OutOrStdout(), t.Header)
			if err != nil {
				return err
			}
			for _, ev := range t.Events {
				if err := w.Write(ev); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", replay.FormatAuto, "input format")
	c.Flags().StringVar(&root, "root", "", "a checkout at the run's base, used where a scope needs the file")
	return c
}

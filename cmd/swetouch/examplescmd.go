package main

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/examples"
)

// examplesCmd writes out the built-in example tasks, conversations and agent scripts,
// for people who want to read or change them.
func examplesCmd() *cobra.Command {
	c := &cobra.Command{Use: "examples", Short: "The built-in example tasks and agent scripts"}
	c.AddCommand(&cobra.Command{
		Use:   "extract DIR",
		Short: "Write the example tasks (DIR/tasks), conversations (DIR/conversations) and agent scripts (DIR/agents) into DIR, and print the three folders",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := examples.Extract(args[0]); err != nil {
				return badInput("%v", err)
			}
			dir, _ := filepath.Abs(args[0])
			for _, top := range examples.Folders() {
				fmt.Fprintln(c.OutOrStdout(), filepath.Join(dir, top))
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch: run them with: swetouch demo --examples %s\n", dir)
			return nil
		},
	})
	return c
}

// version is the module's version and the commit it was built from, as
// the Go toolchain recorded them in the binary.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	var parts []string
	if v != "" {
		parts = append(parts, v)
	}
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))]+modified)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, ", ")
}

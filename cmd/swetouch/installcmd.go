package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// installCmd copies this binary to DEST, so an init container built FROM
// scratch can hand swetouch to any task container through a shared volume.
func installCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "install DEST",
		Short: "Copy this swetouch binary to DEST (for an init container; no cp needed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			in, err := os.Open(self)
			if err != nil {
				return err
			}
			defer in.Close()
			dest := args[0]
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return err
			}
			tmp, err := os.CreateTemp(filepath.Dir(dest), ".swetouch-*")
			if err != nil {
				return err
			}
			defer os.Remove(tmp.Name())
			if _, err := io.Copy(tmp, in); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Chmod(0o755); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Close(); err != nil {
				return err
			}
			return os.Rename(tmp.Name(), dest)
		},
	}
}

package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/internal/atomicfile"
)

// installCmd copies this binary to DEST, so an init container built FROM
// scratch can hand swetouch to any task container through a shared
// volume; swetouch-shim, when it sits beside this binary, goes beside
// DEST, where runs find it.
func installCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "install DEST",
		Short: "Copy this swetouch binary (and swetouch-shim beside it) to DEST (for an init container; no cp needed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			dest := args[0]
			if err := copyExecutable(self, dest); err != nil {
				return err
			}
			shim := filepath.Join(filepath.Dir(self), "swetouch-shim")
			if _, err := os.Stat(shim); err != nil {
				return nil // an install without the small shim: runs link swetouch itself
			}
			return copyExecutable(shim, filepath.Join(filepath.Dir(dest), "swetouch-shim"))
		},
	}
}

// copyExecutable writes src to dest whole or not at all (a temporary
// file renamed into place).
func copyExecutable(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(dest, 0o755, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

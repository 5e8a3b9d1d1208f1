// Package atomicfile writes a file whole or not at all: a reader (another
// run, a resumed eval, the next `swetouch run`) sees the old file or the
// new one, never a part of either.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write writes path with what write writes, with mode, through a file of
// its own in path's folder renamed over path once written, closed and
// given its mode. On any error path is as it was and the temporary file
// is gone. The folder must exist. The temporary file is named
// .swetouch-*, as every file swetouch makes in a workspace (a user's edit
// written there) is, so that a listing of the folder says whose it is.
func Write(path string, mode os.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".swetouch-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, nothing is there to remove
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteBytes is Write of b.
func WriteBytes(path string, mode os.FileMode, b []byte) error {
	return Write(path, mode, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

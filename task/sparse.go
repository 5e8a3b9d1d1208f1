package task

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// copySparse copies in to out data extent by data extent (SEEK_DATA,
// SEEK_HOLE), so a hole stays a hole: a 1 GiB sparse file costs the
// copy what it costs the workspace. A file system that does not know
// holes reports the whole file as data, and it is copied whole.
func copySparse(in, out *os.File, size int64) error {
	for off := int64(0); off < size; {
		data, err := unix.Seek(int(in.Fd()), off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil {
			return &os.PathError{Op: "seek", Path: in.Name(), Err: err}
		}
		hole, err := unix.Seek(int(in.Fd()), data, unix.SEEK_HOLE)
		if err != nil {
			return &os.PathError{Op: "seek", Path: in.Name(), Err: err}
		}
		if _, err := in.Seek(data, io.SeekStart); err != nil {
			return err
		}
		if _, err := out.Seek(data, io.SeekStart); err != nil {
			return err
		}
		// a LimitedReader of a file is what lets io.Copy hand the
		// extent to copy_file_range
		if _, err := io.Copy(out, &io.LimitedReader{R: in, N: hole - data}); err != nil {
			return err
		}
		off = hole
	}
	// the length, holes at the end included
	return out.Truncate(size)
}

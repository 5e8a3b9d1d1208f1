//go:build !linux

package rawfd

import (
	"io"
	"os"
)

// Reader is r itself where there is no raw I/O of Linux's.
func Reader(r io.Reader) io.Reader { return r }

// Writer is w itself where there is no raw I/O of Linux's.
func Writer(w io.Writer) io.Writer { return w }

// Unpolled is f itself where there is no raw I/O of Linux's.
func Unpolled(f *os.File) (*os.File, io.Writer, error) { return f, f, nil }

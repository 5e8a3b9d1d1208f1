package score

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/swetouch/swetouch/internal/atomicfile"
)

// The index and the kept timelines are files of lines: a header naming
// the format and version, then an entry a line, each naming its folder.

// readEntries reads the entries of the file at path by folder, a chunk
// at a time (the timelines are about the size of report.json: never
// whole in memory), decoding each chunk's lines in parallel. A file
// that is missing, of another format or version, or with a line that
// does not decode, gives none.
func readEntries[T any](path, format string, dir func(*T) string) map[string]*T {
	out := map[string]*T{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	head, err := r.ReadBytes('\n')
	var h trajectoryHeader
	if err != nil || jsonv1.Unmarshal(head, &h) != nil || h.Format != format || h.Version != indexVersion {
		return out
	}
	if !chunks(r, func(lines [][]byte) bool {
		entries := make([]T, len(lines))
		if !parallel(len(lines), func(i int) bool {
			return len(lines[i]) == 0 || jsonv1.Unmarshal(lines[i], &entries[i]) == nil
		}) {
			return false
		}
		for i := range entries {
			if d := dir(&entries[i]); d != "" {
				out[d] = &entries[i]
			}
		}
		return true
	}) {
		return map[string]*T{}
	}
	return out
}

// writeEntries writes the file at path, whole or not at all: the header,
// then the entries (in the order given), encoded in parallel a batch at
// a time.
func writeEntries[T any](path, format string, entries []*T) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		fmt.Fprintf(bw, `{"format":%q,"version":%d}`+"\n", format, indexVersion)
		const batch = 4096
		lines := make([][]byte, batch)
		for lo := 0; lo < len(entries); lo += batch {
			part := entries[lo:min(lo+batch, len(entries))]
			if !parallel(len(part), func(i int) bool {
				var err error
				lines[i], err = jsonv1.Marshal(part[i])
				return err == nil
			}) {
				return fmt.Errorf("%s: an entry does not encode", filepath.Base(path))
			}
			for _, l := range lines[:len(part)] {
				bw.Write(l)
				bw.WriteByte('\n')
			}
		}
		return bw.Flush()
	})
}

// chunks gives each's lines a few MiB at a time, until each says stop
// (false) or the file ends; it reports whether each always said go on.
func chunks(r io.Reader, each func(lines [][]byte) bool) bool {
	return chunksOf(r, 8<<20, each)
}

func chunksOf(r io.Reader, size int, each func(lines [][]byte) bool) bool {
	// one buffer, the line a chunk ends inside moved to its front before
	// the next read (each copies what it keeps out of the lines): joining
	// the carried line to each chunk copied the whole chunk every time
	buf := make([]byte, size)
	have := 0
	for {
		if have == len(buf) {
			buf = append(buf, make([]byte, len(buf))...) // a line longer than the buffer
		}
		n, err := io.ReadFull(r, buf[have:])
		chunk := buf[:have+n]
		last := bytes.LastIndexByte(chunk, '\n')
		if err != nil { // the end: what is left is the last line
			last = len(chunk)
		}
		if !each(bytes.Split(chunk[:max(last, 0)], []byte("\n"))) {
			return false
		}
		if err != nil {
			return true
		}
		have = copy(buf, chunk[last+1:])
	}
}

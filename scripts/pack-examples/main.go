// Command pack-examples [-o FILE] [DIR] writes examples/examples.tar.gz: the example tasks
// and agent scripts, which swetouch embeds so that an installed binary
// has them (`go generate ./examples`). The example tasks hold modules of
// their own (a Go task's go.mod), which go:embed cannot take from the
// tree. The archive is byte-for-byte the same for the same files: sorted
// names, no times, no owners.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	out := flag.String("o", "examples.tar.gz", "the archive to write")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	b, err := pack(root)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pack-examples:", err)
		os.Exit(1)
	}
}

// pack archives root's tasks/ and agents/ folders.
func pack(root string) ([]byte, error) {
	var files []string
	for _, top := range []string{"tasks", "conversations", "agents"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// what running a task in place leaves behind is not the task
			if d.Name() == "__pycache__" || d.Name()[0] == '.' {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		info, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: f, Mode: mode, Size: int64(len(data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package examples

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

//go:generate go run ../scripts/pack-examples

// archive is the example tasks, conversations and agent scripts (tasks/,
// conversations/, agents/), so an
// installed swetouch has them wherever it runs. scripts/pack-examples
// makes it from this folder; TestEmbeddedCurrent fails when it is stale.
//
//go:embed examples.tar.gz
var archive []byte

// Folders are the folders Extract writes under its DIR: the single-turn
// tasks, the conversations and the scripted agents' plans.
func Folders() []string { return []string{"tasks", "conversations", "agents"} }

// Extract writes the embedded examples into dir (made if missing): its
// Folders. It refuses a dir that already holds one of them, so nothing
// of the user's is overwritten.
func Extract(dir string) error {
	for _, top := range Folders() {
		if _, err := os.Lstat(filepath.Join(dir, top)); err == nil {
			return fmt.Errorf("%s already exists: extract into an empty folder", filepath.Join(dir, top))
		}
	}
	files, err := Embedded()
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, f.Mode); err != nil {
			return err
		}
	}
	return nil
}

// File is one embedded example file.
type File struct {
	Name string // slash-separated, under tasks/ or agents/
	Mode os.FileMode
	Data []byte
}

// Embedded lists the embedded example files, sorted by name.
func Embedded() ([]File, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("embedded examples: %w", err)
	}
	tr := tar.NewReader(zr)
	var out []File
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("embedded examples: %w", err)
		}
		name := path.Clean(h.Name)
		if strings.HasPrefix(name, "../") || path.IsAbs(name) || h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("embedded examples: bad entry %q", h.Name)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out = append(out, File{Name: name, Mode: os.FileMode(h.Mode) & 0o755, Data: data})
	}
}

// Archive is the embedded archive's bytes, for a sandbox to show
// swetouch without them (sandbox.Scrubbed). Not to be changed.
func Archive() []byte { return archive }

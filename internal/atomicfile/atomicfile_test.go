package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteBytes(p, 0o640, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("content %q", b)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", info.Mode().Perm())
	}

	// a write that fails leaves the file as it was, and no temporary file
	failed := errors.New("disk full")
	err := Write(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}

	// a folder that does not exist: an error, nothing made
	if err := WriteBytes(filepath.Join(dir, "no", "f"), 0o644, nil); err == nil {
		t.Fatal("wrote into a folder that does not exist")
	}
}

//go:build linux

package patch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteBeneath: a write through a directory that is a link out of the
// root is refused by the kernel's resolution (no check of paths to race),
// one through a link inside lands, and missing directories are made.
func TestWriteBeneath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(root, "a"), 0o755)
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink("a", filepath.Join(root, "in"))
	var esc *EscapeError
	if err := writeBeneath(root, "out/x.py", []byte("pwned\n"), 0o644); errors.Is(err, errNoOpenat2) {
		t.Skip("no openat2 here")
	} else if !errors.As(err, &esc) || !esc.Link {
		t.Fatalf("a write through a link out: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.py")); !os.IsNotExist(err) {
		t.Fatalf("the write reached outside: %v", err)
	}
	if err := writeBeneath(root, "out/new/dir/x.py", []byte("pwned\n"), 0o644); !errors.As(err, &esc) {
		t.Fatalf("directories made through a link out: err = %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something was made outside: %v", entries)
	}
	if err := writeBeneath(root, "in/y.py", []byte("y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a", "y.py")); string(b) != "y\n" {
		t.Fatalf("through a link inside: %q", b)
	}
	if err := writeBeneath(root, "b/c/z.py", []byte("z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(root, "b", "c", "z.py")); err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("new directories: %v %v", info, err)
	}
	if err := removeBeneath(root, "out/../a/y.py"); err != nil {
		t.Fatalf("remove: %v", err)
	}
}

// TestWriteBeneathWhileRenaming: the kernel answers EAGAIN to a
// resolution beneath the root that climbs a ".." while any rename on the
// system runs (it cannot rule out an escape then, and says to retry). A
// patch applied while the agent's tests rename files must not fail for
// it: each write through a link that climbs lands.
func TestWriteBeneathWhileRenaming(t *testing.T) {
	root, busy := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.Symlink("b/..", filepath.Join(root, "a", "up")) // a/up is a itself
	if err := writeBeneath(root, "a/up/x.py", []byte("x\n"), 0o644); errors.Is(err, errNoOpenat2) {
		t.Skip("no openat2 here")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p, q := filepath.Join(busy, "p"), filepath.Join(busy, "q")
		os.WriteFile(p, nil, 0o644)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Rename(p, q)
			p, q = q, p
		}
	}()
	defer func() { close(stop); <-done }()
	for i := range 3000 {
		if err := writeBeneath(root, "a/up/b/../x.py", []byte("x\n"), 0o644); err != nil {
			t.Fatalf("write %d while renaming: %v", i, err)
		}
	}
}

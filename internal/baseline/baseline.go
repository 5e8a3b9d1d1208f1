// Package baseline keeps a workspace as it was when a run began, in a
// folder of swetouch's outside the workspace, and says how the workspace
// differs from it now.
//
// It exists so that no host process ever interprets what the agent wrote.
// Asking git in the workspace ("git diff HEAD", "git status", "git
// cat-file") ran the agent's code on the host: the workspace's .git is the
// agent's to write (core.fsmonitor, a textconv driver, hooks, filters,
// include.path), and what git reports follows the agent's commits,
// .gitignore and info/exclude. The baseline is plain files read by
// swetouch alone, and the diff is computed here, over every file the
// verifier's copy would hold, ignored ones included.
package baseline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/internal/safefile"
)

// Tree is a directory tree's files as they were when Take copied them.
// Its methods are safe for concurrent use once Take has returned: a Tree
// never changes.
type Tree struct {
	dir   string                 // the copy, outside the workspace
	files map[string]fs.FileMode // slash-separated path: its type and mode
	dirs  map[string]bool        // every directory holding a file, "" for the root
	attrs []attrRule             // the start's .gitattributes (attributes.go)
}

// Take copies root's regular files and links into dir (made here; it
// must not exist yet), skipping .git directories as the verifier's copy
// does and the directories named in skip (absolute: swetouch's own
// folders inside root, dir itself when it lies there), and returns the
// Tree. root must be what the run's task gave: nothing of the agent's yet.
func Take(root, dir string, skip ...string) (*Tree, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	skip = append(skip, dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		to := filepath.Join(dir, rel)
		switch t := d.Type(); {
		case t.IsDir():
			if p != root && (d.Name() == ".git" || slices.Contains(skip, p)) {
				return filepath.SkipDir
			}
			return os.MkdirAll(to, 0o700)
		case t&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, to)
		case t.IsRegular():
			return copyFile(p, to)
		}
		return nil // a FIFO, a socket, a device: no file of the verifier's
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return Index(dir)
}

// copyFile copies one regular file with its permissions, opening nothing
// but a regular file. A small file is read whole and written: on this
// project's machines copy_file_range took three times as long a file.
func copyFile(from, to string) error {
	in, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	if info.Size() <= 1<<20 {
		b, err := io.ReadAll(in)
		if err == nil {
			_, err = out.Write(b)
		}
		if err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Index is the Tree of a directory that already lies out of the agent's
// reach (a task's own repository): nothing is copied, and the directory
// must not change while the Tree is in use.
func Index(dir string) (*Tree, error) {
	t := &Tree{dir: dir, files: map[string]fs.FileMode{}, dirs: map[string]bool{"": true}, attrs: readAttributes(dir)}
	err := walk(dir, func(rel string, mode fs.FileMode) {
		t.files[rel] = mode
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			t.dirs[d] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return t, nil
}

// walk calls fn for each regular file and link under root, by its
// slash-separated path, never following a link and skipping directories
// named .git (the verifier copies none). Anything else (a FIFO, a socket,
// a device) is not a file the verifier copies, and is passed over.
func walk(root string, fn func(rel string, mode fs.FileMode)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil // gone since its directory was listed
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		t := d.Type()
		if t&fs.ModeSymlink == 0 && !t.IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fn(filepath.ToSlash(rel), info.Mode())
		return nil
	})
}

// Has reports whether rel was a file (or a link) at the start.
func (t *Tree) Has(rel string) bool {
	_, ok := t.files[rel]
	return ok
}

// HasDir reports whether rel was a directory holding files at the start.
func (t *Tree) HasDir(rel string) bool { return t.dirs[rel] }

// Content is rel's content at the start: false when it was no regular
// file.
func (t *Tree) Content(rel string) (string, bool) {
	if mode, ok := t.files[rel]; !ok || !mode.IsRegular() {
		return "", false
	}
	b, err := safefile.ReadIn(t.dir, rel)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// Link is rel's target when it was a link at the start.
func (t *Tree) Link(rel string) (string, bool) {
	if t.files[rel]&fs.ModeSymlink == 0 {
		return "", false
	}
	l, err := os.Readlink(filepath.Join(t.dir, filepath.FromSlash(rel)))
	return l, err == nil
}

// Below lists the files that were under the directory rel, sorted.
func (t *Tree) Below(rel string) []string {
	prefix := rel + "/"
	var out []string
	for p := range t.files {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Paths lists every file of the start, sorted.
func (t *Tree) Paths() []string {
	out := make([]string, 0, len(t.files))
	for p := range t.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Dir is the folder the copy is kept in.
func (t *Tree) Dir() string { return t.dir }

// ErrNoTree is returned by Diff when the workspace itself is gone.
var ErrNoTree = errors.New("baseline: the workspace is gone")

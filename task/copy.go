package task

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// CopyRegular copies a directory tree, skipping .git, and keeps only what
// cannot reach outside it or block a reader: regular files, directories,
// and symbolic links that resolve inside the tree. It never opens
// anything but a regular file (a FIFO would block, a device read from
// the host) and never follows a link. What it leaves out comes back as
// "path: why", sorted; the error is for a copy that could not be written:
// a *WorkspaceError when what src holds is the cause (past CopyWithin's
// bounds, a file too large or a name too long for the copy). Sparse
// files stay sparse.
func CopyRegular(src, dst string, opts ...CopyOption) (leftOut []string, err error) {
	var c copier
	for _, o := range opts {
		o(&c)
	}
	count := tally{budget: c.budget}
	var links []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		if err != nil {
			if rel == "." {
				return err
			}
			leftOut = append(leftOut, fmt.Sprintf("%s: %v", filepath.ToSlash(rel), unwrapPath(err)))
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && rel != "." {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		if rel != "." {
			if err := count.entry(rel, d); err != nil {
				return err
			}
		}
		err = copyEntry(p, to, rel, d, &leftOut, &links)
		return count.agentsFault(filepath.ToSlash(rel), err)
	})
	if err != nil {
		return leftOut, err
	}
	// a link is kept only if it resolves inside the copy, through the
	// other links as they are there (a link to a link that climbs out
	// leaves too)
	for _, rel := range links {
		if why := escapes(dst, rel); why != "" {
			if err := os.Remove(filepath.Join(dst, rel)); err != nil {
				return leftOut, err
			}
			leftOut = append(leftOut, filepath.ToSlash(rel)+": "+why)
		}
	}
	slices.Sort(leftOut)
	return leftOut, nil
}

// CopyOption configures CopyRegular.
type CopyOption func(*copier)

type copier struct{ budget Budget }

// CopyWithin bounds the copy (a zero field: no bound): past it the copy
// stops with a *WorkspaceError.
func CopyWithin(b Budget) CopyOption { return func(c *copier) { c.budget = b } }

// copyEntry copies one entry the walk found at p to to.
func copyEntry(p, to, rel string, d fs.DirEntry, leftOut, links *[]string) error {
	switch t := d.Type(); {
	case t.IsDir():
		info, err := d.Info()
		if err != nil {
			return nil
		}
		return os.MkdirAll(to, info.Mode().Perm()|0o700)
	case t&fs.ModeSymlink != 0:
		l, err := os.Readlink(p)
		if err != nil {
			*leftOut = append(*leftOut, fmt.Sprintf("%s: %v", filepath.ToSlash(rel), unwrapPath(err)))
			return nil
		}
		*links = append(*links, rel)
		return os.Symlink(l, to)
	case t.IsRegular():
		why, err := copyFile(p, to)
		if why != "" {
			*leftOut = append(*leftOut, filepath.ToSlash(rel)+": "+why)
		}
		return err
	default:
		*leftOut = append(*leftOut, fmt.Sprintf("%s: %s", filepath.ToSlash(rel), kind(t)))
		return nil
	}
}

// copyFile copies one regular file: why says why it was left out (it
// could not be read, or was no longer a regular file when opened), err
// that the copy could not be written.
func copyFile(from, to string) (why string, err error) {
	// O_NOFOLLOW and O_NONBLOCK: a file swapped for a link or a FIFO
	// since the walk saw it is neither followed nor waited on
	in, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return unwrapPath(err).Error(), nil
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err.Error(), nil
	}
	if !info.Mode().IsRegular() {
		return kind(info.Mode().Type()), nil
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return "", err
	}
	if err := copySparse(in, out, info.Size()); err != nil {
		out.Close()
		os.Remove(to)
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == from {
			return pe.Err.Error(), nil
		}
		return "", err
	}
	return "", out.Close()
}

// unwrapPath is err without the path it names (the copy says which).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func kind(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO, not copied"
	case t&fs.ModeSocket != 0:
		return "a socket, not copied"
	case t&fs.ModeDevice != 0:
		return "a device, not copied"
	}
	return "not a regular file, not copied"
}

// escapes says why the link at rel inside root resolves outside root
// ("" when it does not). It resolves the way the kernel does, one
// component at a time, following links inside root; a component that
// does not exist is taken as it is named.
func escapes(root, rel string) string {
	target, _ := os.Readlink(filepath.Join(root, rel))
	dir := []string{}
	if d := filepath.ToSlash(filepath.Dir(rel)); d != "." {
		dir = strings.Split(d, "/")
	}
	if filepath.IsAbs(target) {
		return "a link to " + target + ", outside the workspace"
	}
	if _, ok := resolveIn(root, dir, target, 0); !ok {
		return "a link to " + target + ", which leaves the workspace"
	}
	return ""
}

// resolveIn resolves path from the directory cur (components under
// root) and returns where it ends; false when a step leaves root, a link
// is absolute, or links loop.
func resolveIn(root string, cur []string, path string, depth int) ([]string, bool) {
	if depth > 40 {
		return nil, false // ELOOP for the kernel: not a way in
	}
	cur = slices.Clone(cur)
	for _, c := range strings.Split(filepath.ToSlash(path), "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return nil, false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		p := filepath.Join(root, filepath.Join(cur...), c)
		info, err := os.Lstat(p)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, c)
			continue
		}
		l, err := os.Readlink(p)
		if err != nil || filepath.IsAbs(l) {
			return nil, false
		}
		// the link's target, from the link's own directory
		next, ok := resolveIn(root, cur, l, depth+1)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// Package safefile reads a workspace's files the way the hub must: never
// waiting on what the agent left there. A FIFO would block the reader
// (and the hub, which holds its lock) for good, a device or a socket has
// no content, and a link that resolves outside the workspace names a file
// that is not the agent's (and may block: /proc/kmsg is "regular").
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file inside the root.
var ErrNotRegular = errors.New("not a regular file in the workspace")

// ReadIn reads root/rel when it is a regular file, or a link to one inside
// root; it opens nothing else and never waits.
func ReadIn(root, rel string) ([]byte, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, err
		}
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			r = root
		}
		if !Inside(real, r) {
			return nil, fmt.Errorf("%s: a link out of the workspace: %w", rel, ErrNotRegular)
		}
		p = real
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", rel, ErrNotRegular)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", rel, ErrNotRegular) // swapped since the Lstat
	}
	return io.ReadAll(f)
}

// Inside reports whether p is root or lies under it (both clean).
func Inside(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

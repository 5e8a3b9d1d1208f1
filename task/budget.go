package task

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// Budget bounds what a workspace's copy for the verifier may hold. The
// agent decides what its workspace holds, so a copy that cannot be made
// for its size or its contents is the agent's failure, never an
// infrastructure error that a score would leave out. A zero field is no
// bound.
type Budget struct {
	// Bytes is the disk the copy may take: the files' allocated blocks,
	// not their apparent sizes (a sparse file's holes stay holes).
	Bytes int64
	// Apparent is the sum of the files' apparent sizes: what a test that
	// reads them reads. A 1 TiB sparse file costs no disk but is past it.
	Apparent int64
	// Files is how many entries (files, directories, links) it may hold.
	Files int
}

// DefaultBudget is the verifier's budget unless WithBudget says
// otherwise: room for any repository of SWE-bench's with its build
// outputs, and far from a disk's size.
func DefaultBudget() Budget {
	return Budget{Bytes: 2 << 30, Apparent: 16 << 30, Files: 250_000}
}

// WorkspaceError is a workspace the verifier cannot copy because of what
// the agent left in it: over its budget, or holding what the copy's
// file system refuses (a file too large, a name too long). Its verdict
// is false, with Error as the reason.
type WorkspaceError struct {
	Path string // the entry that could not be copied ("" for the whole)
	Why  string
}

func (e *WorkspaceError) Error() string {
	if e.Path == "" {
		return "the workspace " + e.Why
	}
	return "the workspace's " + e.Path + ": " + e.Why
}

// tally counts a copy against its budget.
type tally struct {
	budget          Budget
	bytes, apparent int64
	files           int
}

// entry counts one entry the walk found; the error says which bound it
// passed.
func (t *tally) entry(rel string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return nil // gone since the walk read its directory: nothing to copy
	}
	rel = filepath.ToSlash(rel)
	t.files++
	if t.budget.Files > 0 && t.files > t.budget.Files {
		return &WorkspaceError{Why: fmt.Sprintf("holds more than %d files and directories (the verifier's budget)", t.budget.Files)}
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	alloc := info.Size()
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		alloc = st.Blocks * 512
	}
	t.bytes += alloc
	t.apparent += info.Size()
	if t.budget.Bytes > 0 && t.bytes > t.budget.Bytes {
		return &WorkspaceError{Path: rel, Why: fmt.Sprintf("takes the workspace past %s on disk (the verifier's budget)", bytesOf(t.budget.Bytes))}
	}
	if t.budget.Apparent > 0 && t.apparent > t.budget.Apparent {
		return &WorkspaceError{Path: rel, Why: fmt.Sprintf("of apparent size %s takes the workspace past %s to read (the verifier's budget; sparse files count their holes here)", bytesOf(info.Size()), bytesOf(t.budget.Apparent))}
	}
	return nil
}

// DiskFullError is a copy that filled its disk (ENOSPC, EDQUOT) within
// its budget, after Bytes: whose fault that is depends on how far the
// agent grew its workspace (Verify decides).
type DiskFullError struct {
	Bytes int64 // the disk the copy had taken when it failed
	Err   error
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("the copy filled its disk after %s: %v", bytesOf(e.Bytes), e.Err)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// agentsFault turns a write error of the copy that the workspace's
// contents caused into a WorkspaceError, and a full disk into a
// DiskFullError; others (a permission of the host's) pass as they are,
// as the machine's.
func (t *tally) agentsFault(rel string, err error) error {
	var errno syscall.Errno
	if err == nil || !errors.As(err, &errno) {
		return err
	}
	switch errno {
	case syscall.ENOSPC, syscall.EDQUOT:
		return &DiskFullError{Bytes: t.bytes, Err: err}
	case syscall.EFBIG:
		return &WorkspaceError{Path: rel, Why: "is larger than the copy's file system takes (EFBIG)"}
	case syscall.ENAMETOOLONG:
		return &WorkspaceError{Path: rel, Why: "has a name too long to copy (ENAMETOOLONG)"}
	case syscall.EMLINK:
		return &WorkspaceError{Path: rel, Why: "holds more entries than its directory can (EMLINK)"}
	case syscall.ELOOP:
		return &WorkspaceError{Path: rel, Why: "is nested too deep to copy (ELOOP)"}
	}
	return err
}

func bytesOf(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// allocated is the disk the regular files under dir take (.git left
// out, as the copy leaves it).
func allocated(dir string) int64 {
	t := tally{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && p != dir {
			return filepath.SkipDir
		}
		t.entry(p, d)
		return nil
	})
	return t.bytes
}

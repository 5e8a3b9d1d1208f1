package conversation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/task"
)

// admissionRules names the conditions Admit applies: a change to them
// makes every cached admission stale.
const admissionRules = "userswe-u5-v1"

// Cache keeps admissions by task digest, so eval (and a run after
// `swetouch check`) does not run a task's states again: a digest covers
// every file of the task (its code, tests, solution and package), the
// rules and how the tests ran, so a changed task is checked afresh.
type Cache struct {
	Dir string // "": nothing kept
}

// DefaultCache is the user's cache folder's swetouch/admission (none
// when the system has no cache folder).
func DefaultCache() Cache {
	d, err := os.UserCacheDir()
	if err != nil {
		return Cache{}
	}
	return Cache{Dir: filepath.Join(d, "swetouch", "admission")}
}

// Admit is t's admission as the cache holds it for the task's digest,
// else Admit's, then kept. how tells apart admissions that ran their
// tests differently (sandboxed or not). cached says whether it came
// from the cache. A cache that cannot be read or written is passed by.
func (c Cache) Admit(ctx context.Context, t *task.Task, p *Package, how string, opts ...task.VerifyOption) (a *Admission, cached bool, err error) {
	digest, err := Digest(t, how)
	if err != nil {
		return nil, false, err
	}
	path := ""
	if c.Dir != "" {
		path = filepath.Join(c.Dir, digest+".json")
		if b, err := os.ReadFile(path); err == nil {
			var held Admission
			if json.Unmarshal(b, &held) == nil && held.Digest == digest {
				return &held, true, nil
			}
		}
	}
	if a, err = Admit(ctx, t, p, opts...); err != nil {
		return nil, false, err
	}
	a.Digest = digest
	if path != "" {
		if b, err := json.MarshalIndent(a, "", "  "); err == nil && os.MkdirAll(c.Dir, 0o755) == nil {
			atomicfile.WriteBytes(path, 0o644, append(b, '\n'))
		}
	}
	return a, false, nil
}

// Digest is the SHA-256 of every file of t (its folder, and its code,
// tests and solution where they lie outside it: each file's path, mode
// and bytes; a link's target), the admission's rules and how.
func Digest(t *task.Task, how string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", admissionRules, how)
	roots := []string{t.Dir}
	for _, r := range []string{t.Repo, t.Tests, filepath.Dir(t.Solution)} {
		if r == "" || r == "." || slices.ContainsFunc(roots, func(root string) bool { return within(root, r) }) {
			continue
		}
		roots = append(roots, r)
	}
	for _, root := range roots {
		fmt.Fprintf(h, "root\x00%s\x00", filepath.Base(root))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			info, err := d.Info()
			if err != nil {
				return err
			}
			switch {
			case d.IsDir():
				fmt.Fprintf(h, "d\x00%s\x00", rel)
			case d.Type()&fs.ModeSymlink != 0:
				to, err := os.Readlink(p)
				if err != nil {
					return err
				}
				fmt.Fprintf(h, "l\x00%s\x00%s\x00", rel, to)
			case d.Type().IsRegular():
				fmt.Fprintf(h, "f\x00%s\x00%o\x00%d\x00", rel, info.Mode().Perm(), info.Size())
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				_, err = io.Copy(h, f)
				f.Close()
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("the task's digest: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// within reports whether p is root or beneath it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}

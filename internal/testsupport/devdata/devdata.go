// Package devdata locates the material the corpus tests read in place: the
// shared dev corpus and records, and mirrors of upstream repositories
// (fetched, never committed). A test that needs one skips with a message
// saying how to provide it.
package devdata

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// Shared is the shared folder (corpus, data, research), by default beside
// the repository (found from the test's package directory, however deep);
// SWETOUCH_SHARED overrides it. Missing, the test skips, or fails where
// SWETOUCH_REQUIRE names corpus.
func Shared(t testing.TB) string {
	d := os.Getenv("SWETOUCH_SHARED")
	if d == "" {
		d = filepath.Join(repoRoot(), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(d, "corpus")); err != nil {
		testsupport.Missing(t, testsupport.Corpus, "shared corpus not found at %s (set SWETOUCH_SHARED): %v", d, err)
	}
	return d
}

// repoRoot is the nearest directory above the working directory holding
// go.mod ("." when none does).
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}

// Mirror is the bare git directory of a fetched mirror of repo
// ("owner/name"), under SWETOUCH_MIRRORS (default /work/.mirror).
func Mirror(t testing.TB, repo string) string {
	root := os.Getenv("SWETOUCH_MIRRORS")
	if root == "" {
		root = "/work/.mirror"
	}
	d := filepath.Join(root, strings.ReplaceAll(repo, "/", "+"), "repo")
	if _, err := os.Stat(d); err != nil {
		testsupport.Missing(t, testsupport.Mirrors, "mirror of %s not found at %s (fetch github:%s, or set SWETOUCH_MIRRORS)", repo, d, repo)
	}
	return d
}

// RepoOf names the upstream repository of a SWE-bench instance id.
func RepoOf(id string) string {
	owner, rest, _ := strings.Cut(id, "__")
	if i := strings.LastIndexByte(rest, '-'); i > 0 {
		rest = rest[:i]
	}
	return owner + "/" + rest
}

// GitFiles reads one commit's files from a mirror: a run's base, as a
// shell.FileSource.
type GitFiles struct {
	GitDir, Commit string
	cache          map[string][]byte
}

// ReadFile returns a repo-relative file at the commit.
func (g *GitFiles) ReadFile(p string) ([]byte, error) {
	if g.cache == nil {
		g.cache = map[string][]byte{}
	}
	if b, ok := g.cache[p]; ok {
		if b == nil {
			return nil, os.ErrNotExist
		}
		return b, nil
	}
	b, err := exec.Command("git", "--git-dir", g.GitDir, "show", g.Commit+":"+p).Output()
	if err != nil {
		g.cache[p] = nil
		return nil, os.ErrNotExist
	}
	g.cache[p] = b
	return b, nil
}

package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Checkout writes into dest (made here; it must not exist) a git
// repository holding repo's commit and nothing else of repo's: the one
// commit, fetched with depth 1 (so its hash is the base commit's and a
// test script's `git diff BASE` works), checked out on a branch of its
// own, with no remote, no tags, no reflog, no FETCH_HEAD and no object
// of a later state. An agent's `git log --all`, `git tag`, `git reflog`,
// `git stash list` in it show the base state alone: SWE-bench's own
// images once held the fix's commit in their history, and agents read
// it (SWE-bench issue 465; mini-swe-agent issue 787).
//
// repo is read by git as a local repository (file://, so its objects
// are packed and sent, never hard-linked); the global and system git
// configuration are not read, so no hook, template or credential of the
// host's reaches dest.
func Checkout(ctx context.Context, repo, commit, dest string) error {
	if !fullHash.MatchString(commit) {
		// a branch or tag name would be resolved in repo as it is now,
		// and a short hash could become ambiguous: the instance's own
		// full hash, always
		return fmt.Errorf("base commit: want a full 40-digit hash, got %q", commit)
	}
	src, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s already exists", dest)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	steps := [][]string{
		{"init", "-q", "--template=", "-b", "main"},
		{"-c", "protocol.file.allow=always", "fetch", "-q", "--no-tags", "--depth", "1", "file://" + src, commit},
		{"-c", "advice.detachedHead=false", "checkout", "-q", "-B", "main", "FETCH_HEAD"},
	}
	for _, args := range steps {
		if err := git(ctx, dest, args...); err != nil {
			return err
		}
	}
	// what the fetch and checkout left of their own doing
	for _, p := range []string{"FETCH_HEAD", "ORIG_HEAD", "logs"} {
		if err := os.RemoveAll(filepath.Join(dest, ".git", p)); err != nil {
			return err
		}
	}
	return nil
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// git runs git in dir without the host's configuration.
func git(ctx context.Context, dir string, args ...string) error {
	c := exec.CommandContext(ctx, "git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

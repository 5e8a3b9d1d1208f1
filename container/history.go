package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

// Prune makes the repository at dir (a checkout in an image that was not
// built here: SWE-bench's own, a vendor's) hold its HEAD commit alone, as
// Checkout would have made it: the commit fetched with depth 1 from the
// old repository into a new one, which then takes the old one's place;
// the work tree is left as it is, and the index is rebuilt from the
// commit, so `git status` shows what the image changed since it. The
// old repository is removed: run it in the trial's container, which is
// thrown away after.
func Prune(ctx context.Context, dir string) error {
	old := filepath.Join(dir, ".git")
	if st, err := os.Lstat(old); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: not a git checkout with a .git directory of its own", dir)
	}
	head, err := gitOutput(ctx, dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return err
	}
	if alone(ctx, dir, head) {
		return nil // as Checkout made it: nothing later to take out
	}
	// made inside the checkout, so that its entries are renamed within
	// one file system: the checkout may be a tmpfs of its own (podman's,
	// WorkdirOptions) on a container whose / is an overlay
	fresh, err := os.MkdirTemp(dir, ".swetouch-git-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(fresh)
	steps := [][]string{
		{"init", "-q", "--template=", "-b", "main"},
		{"-c", "protocol.file.allow=always", "fetch", "-q", "--no-tags", "--depth", "1", "file://" + dir, head},
		{"update-ref", "refs/heads/main", head},
	}
	for _, args := range steps {
		if err := git(ctx, fresh, args...); err != nil {
			return err
		}
	}
	for _, p := range []string{"FETCH_HEAD", "logs"} {
		if err := os.RemoveAll(filepath.Join(fresh, ".git", p)); err != nil {
			return err
		}
	}
	// .git's entries replaced, not .git itself: an image's directory is
	// in a lower layer of the container's overlay, which cannot be
	// renamed (EXDEV); what Prune made is in the upper one, which can
	if err := swapEntries(old, filepath.Join(fresh, ".git")); err != nil {
		return err
	}
	// the index from the commit, the work tree untouched (read-tree
	// writes no reflog, as reset would)
	if err := git(ctx, dir, "read-tree", "HEAD"); err != nil {
		return err
	}
	return git(ctx, dir, "update-index", "-q", "--refresh")
}

// gitOutput is git's standard output, trimmed.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, "git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// swapEntries empties dir and moves src's entries into it.
func swapEntries(dir, src string) error {
	olds, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range olds {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	news, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range news {
		if err := os.Rename(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// alone reports whether the repository at dir already holds head and
// nothing else: head the one commit any ref or reflog reaches, every
// object stored reachable from it, and no FETCH_HEAD or ORIG_HEAD
// naming another. An image built by Build is so, and Prune need not
// fetch its tree again (a second or more for sympy's). Any doubt (a
// count that does not match, a git that fails) says no, and Prune
// makes it so.
func alone(ctx context.Context, dir, head string) bool {
	for _, f := range []string{"FETCH_HEAD", "ORIG_HEAD"} {
		if _, err := os.Lstat(filepath.Join(dir, ".git", f)); err == nil {
			return false
		}
	}
	commits, err := gitOutput(ctx, dir, "rev-list", "--all", "--reflog")
	if err != nil || commits != head {
		return false
	}
	reachable, err := gitOutput(ctx, dir, "rev-list", "--objects", "--all", "--reflog")
	if err != nil {
		return false
	}
	counts, err := gitOutput(ctx, dir, "count-objects", "-v")
	if err != nil {
		return false
	}
	stored := 0
	for _, l := range strings.Split(counts, "\n") {
		k, v, _ := strings.Cut(l, ": ")
		if k == "count" || k == "in-pack" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return false
			}
			stored += n
		}
	}
	return stored == strings.Count(reachable, "\n")+1
}

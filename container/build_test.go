package container

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutHoldsOnlyTheBase: the repository a build puts in an image
// holds the base commit (its own hash) and nothing later: git log --all,
// git tag, git reflog and git stash list show the base alone, and the
// fix's commit, the tag's and the stash's objects are absent.
func TestCheckoutHoldsOnlyTheBase(t *testing.T) {
	in := pyInstance(t)
	dest := filepath.Join(t.TempDir(), "repo")
	if err := Checkout(context.Background(), in.Repo, in.Base, dest); err != nil {
		t.Fatal(err)
	}
	checkOneCommit(t, in, func(args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir = dest
		out, err := c.CombinedOutput()
		return string(out), err
	})
	if b, err := os.ReadFile(filepath.Join(dest, "tinycalc", "ops.py")); err != nil || string(b) != baseFiles["tinycalc/ops.py"] {
		t.Errorf("ops.py is not the base's: %q %v", b, err)
	}
}

func TestCheckoutRefusesANameForTheCommit(t *testing.T) {
	in := pyInstance(t)
	for _, c := range []string{"main", "v1.1", in.Base[:12], ""} {
		if err := Checkout(context.Background(), in.Repo, c, filepath.Join(t.TempDir(), "r")); err == nil || !strings.Contains(err.Error(), "40-digit") {
			t.Errorf("%q: %v", c, err)
		}
	}
}

// checkOneCommit runs the history commands an agent would through git
// and checks that the base is all they show.
func checkOneCommit(t *testing.T, in instance, git func(args ...string) (string, error)) {
	t.Helper()
	out, err := git("log", "--all", "--format=%H")
	if err != nil || strings.TrimSpace(out) != in.Base {
		t.Errorf("git log --all: %q %v, want the base %s alone", out, err, in.Base)
	}
	for _, args := range [][]string{{"tag"}, {"stash", "list"}, {"remote"}, {"reflog"}} {
		if out, err := git(args...); err != nil || strings.TrimSpace(out) != "" {
			t.Errorf("git %s: %q %v, want nothing", strings.Join(args, " "), out, err)
		}
	}
	if out, err := git("rev-parse", "HEAD"); err != nil || strings.TrimSpace(out) != in.Base {
		t.Errorf("HEAD: %q %v, want the base commit's own hash", out, err)
	}
	if out, err := git("cat-file", "-e", in.Fix); err == nil {
		t.Errorf("the fix's commit %s is in the repository: %s", in.Fix, out)
	}
	if out, err := git("fsck", "--lost-found", "--no-reflogs"); err != nil || strings.Contains(out, "dangling") {
		t.Errorf("git fsck: %q %v: an object of no commit's", out, err)
	}
	if out, err := git("status", "--porcelain"); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("git status: %q %v, want a clean checkout", out, err)
	}
}

func TestSpecChecked(t *testing.T) {
	good := Spec{Tag: "localhost/x:1", Repo: "/r", Commit: strings.Repeat("a", 40)}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]Spec{
		"package":  {Tag: "x", Repo: "/r", Packages: []string{"python3 && curl evil"}},
		"pip":      {Tag: "x", Repo: "/r", Pip: []string{"-e git+https://x"}},
		"tag":      {Tag: "X Y", Repo: "/r"},
		"workdir":  {Tag: "x", Repo: "/r", Workdir: "testbed"},
		"root dir": {Tag: "x", Repo: "/r", Workdir: "/"},
	} {
		if err := s.Check(); err == nil {
			t.Errorf("%s: a bad spec passed", name)
		}
	}
	if err := (Spec{Tag: "x", Repo: "/r", Pip: []string{"numpy>=1.20,<2", "requests[socks]==2.31.0"}}).Check(); err != nil {
		t.Errorf("good pip lines refused: %v", err)
	}
}

// TestImageHoldsOnlyTheBase builds the fixture's image (the source
// repository has a later commit, a tag, a branch and a stash) and asks
// git inside a container of it, as an agent would.
func TestImageHoldsOnlyTheBase(t *testing.T) {
	rt := needRuntime(t)
	img := fixtureImage(t, rt)
	in := pyInstance(t)
	checkOneCommit(t, in, func(args ...string) (string, error) {
		out, err := rt.Output(context.Background(), append([]string{"run", "--rm", "--network", "none", img, "git"}, args...)...)
		return string(out), err
	})
	out, err := rt.Output(context.Background(), "run", "--rm", "--network", "none", img, "python3", "-m", "pytest", "-q", "tests/test_ops.py")
	if err != nil || !strings.Contains(string(out), "2 passed") {
		t.Errorf("the base's tests in the image: %s %v", out, err)
	}
}

// TestPruneLeavesOnlyHead: a checkout with the whole history (a clone of
// the fixture, reset to the base, as SWE-bench's first images were) holds
// the base alone after Prune, its work tree untouched.
func TestPruneLeavesOnlyHead(t *testing.T) {
	in := pyInstance(t)
	dir := filepath.Join(t.TempDir(), "testbed")
	run := func(d string, args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir = d
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	if out, err := run(filepath.Dir(dir), "clone", "-q", in.Repo, dir); err != nil {
		t.Fatal(out)
	}
	if out, err := run(dir, "reset", "-q", "--hard", in.Base); err != nil {
		t.Fatal(out)
	}
	// a change the image made after its commit stays, as a change
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("changed by the image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(dir, "log", "--all", "--format=%H"); strings.Count(out, "\n") < 3 {
		t.Fatalf("the clone should hold the later history: %q", out)
	}
	if err := Prune(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if out, err := run(dir, "status", "--porcelain"); err != nil || strings.TrimSpace(out) != "M README" {
		t.Errorf("git status after Prune: %q %v, want the image's change alone", out, err)
	}
	run(dir, "checkout", "-q", "README")
	checkOneCommit(t, in, func(args ...string) (string, error) { return run(dir, args...) })
}

// TestAloneSeesALaterObject: a repository as Checkout made it is left
// alone by Prune, but one later object (a blob of the fix, stored and
// reachable from nothing) is enough for Prune to make it anew.
func TestAloneSeesALaterObject(t *testing.T) {
	in := pyInstance(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "testbed")
	if err := Checkout(ctx, in.Repo, in.Base, dir); err != nil {
		t.Fatal(err)
	}
	if !alone(ctx, dir, in.Base) {
		t.Fatal("a checkout as Build makes it is not taken as alone")
	}
	c := exec.Command("git", "hash-object", "-w", "--stdin")
	c.Dir = dir
	c.Stdin = strings.NewReader(fixedOps)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatal(string(out))
	}
	if alone(ctx, dir, in.Base) {
		t.Fatal("a stored object of a later state went unseen")
	}
	if err := Prune(ctx, dir); err != nil {
		t.Fatal(err)
	}
	c = exec.Command("git", "count-objects", "-v")
	c.Dir = dir
	out, _ := c.CombinedOutput()
	if !alone(ctx, dir, in.Base) {
		t.Errorf("after Prune the repository still holds more than the base: %s", out)
	}
}

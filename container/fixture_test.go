package container

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A SWE-bench-style instance of our own: a small Python package whose
// mean() divides by zero on an empty list (the issue), the fix and its
// test in a later commit (tagged, as a release would be), and the test
// patch, gold patch, FAIL_TO_PASS and PASS_TO_PASS as the dataset has
// them.

const issue = `tinycalc.ops.mean([]) raises ZeroDivisionError

mean() of an empty sequence should raise ValueError("mean of an empty sequence"),
as statistics.mean does, not ZeroDivisionError.
`

var baseFiles = map[string]string{
	"tinycalc/__init__.py": "",
	"tinycalc/ops.py": `def add(a, b):
    return a + b


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)
`,
	"tests/test_ops.py": `from tinycalc.ops import add, mean


def test_add():
    assert add(2, 3) == 5


def test_mean():
    assert mean([1, 2, 3]) == 2
`,
	// pythonpath: SWE-bench's plain `pytest` (not python -m pytest)
	// finds the package uninstalled, as an image's pip install -e would
	"setup.cfg": "[tool:pytest]\ntestpaths = tests\npythonpath = .\n",
}

var fixedOps = `def add(a, b):
    return a + b


def mean(xs):
    xs = list(xs)
    if not xs:
        raise ValueError("mean of an empty sequence")
    return sum(xs) / len(xs)
`

var fixedTests = baseFiles["tests/test_ops.py"] + `

def test_mean_empty():
    import pytest

    with pytest.raises(ValueError, match="empty"):
        mean([])
`

// instance is the fixture as a SWE-bench row.
type instance struct {
	Repo                   string // the local git repository
	Base, Fix              string // commits
	Patch, TestPatch       string // the gold patch, the test patch
	FailToPass, PassToPass []string
}

var (
	fixtureOnce sync.Once
	fixture     instance
	fixtureErr  error
)

// pyInstance makes the fixture's repository once per test process.
func pyInstance(t *testing.T) instance {
	t.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = makeInstance() })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func makeInstance() (instance, error) {
	dir, err := os.MkdirTemp("", "swetouch-tinycalc-")
	if err != nil {
		return instance{}, err
	}
	in := instance{Repo: dir,
		FailToPass: []string{"tests/test_ops.py::test_mean_empty"},
		PassToPass: []string{"tests/test_ops.py::test_add", "tests/test_ops.py::test_mean"}}
	g := func(args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
		out, err := c.CombinedOutput()
		if err != nil {
			return "", errors.New("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + string(out))
		}
		return strings.TrimSpace(string(out)), nil
	}
	write := func(files map[string]string) error {
		for p, s := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	steps := []func() error{
		func() error { _, err := g("init", "-q", "-b", "main"); return err },
		// an earlier commit too: the base is fetched alone, without its
		// parents (depth 1), so the image holds one commit
		func() error { return write(map[string]string{"README": "tinycalc\n"}) },
		func() error { _, err := g("add", "-A"); return err },
		func() error { _, err := g("commit", "-qm", "a readme"); return err },
		func() error { return write(baseFiles) },
		func() error { _, err := g("add", "-A"); return err },
		func() error { _, err := g("commit", "-qm", "tinycalc: add and mean"); return err },
		func() (err error) { in.Base, err = g("rev-parse", "HEAD"); return err },
		func() error {
			return write(map[string]string{"tinycalc/ops.py": fixedOps, "tests/test_ops.py": fixedTests})
		},
		func() error {
			_, err := g("commit", "-qam", "ops: mean of an empty sequence raises ValueError (the fix)")
			return err
		},
		func() (err error) { in.Fix, err = g("rev-parse", "HEAD"); return err },
		func() error { _, err := g("tag", "-a", "v1.1", "-m", "release with the fix"); return err },
		func() (err error) { in.Patch, err = g("diff", in.Base, in.Fix, "--", "tinycalc"); return err },
		func() (err error) { in.TestPatch, err = g("diff", in.Base, in.Fix, "--", "tests"); return err },
		// a stash and a branch of later states too, which the image must
		// not hold either
		func() error { return write(map[string]string{"tinycalc/ops.py": fixedOps + "# stashed\n"}) },
		func() error { _, err := g("stash", "-q"); return err },
		func() error { _, err := g("branch", "later", in.Fix); return err },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			os.RemoveAll(dir)
			return instance{}, err
		}
	}
	in.Patch += "\n"
	in.TestPatch += "\n"
	return in, nil
}

// testRuntime is the runtime the tests drive: podman, or
// $SWETOUCH_TEST_RUNTIME (docker, with its daemon at $DOCKER_HOST).
func testRuntime() string {
	if r := os.Getenv("SWETOUCH_TEST_RUNTIME"); r != "" {
		return r
	}
	return Podman
}

// needRuntime is the tests' runtime, or the test skips saying why; the
// base image needs debootstrap unless its root file system is cached.
func needRuntime(t *testing.T) *Runtime {
	t.Helper()
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := Find(testRuntime(), cache)
	if err != nil {
		t.Skipf("no %s here (.ci/run installs podman): %v", testRuntime(), err)
	}
	if out, err := rt.Output(context.Background(), "info"); err != nil {
		t.Skipf("%s cannot run here: %v (%s)", rt.Name, err, out)
	}
	if _, err := exec.LookPath("debootstrap"); err != nil && !rt.HasImage(context.Background(), BaseImage(DefaultSuite)) {
		if _, err := os.Stat(filepath.Join(cache, "rootfs", DefaultSuite+"-minbase.tar")); err != nil {
			t.Skip("no debootstrap and no cached root file system: the base image cannot be made (.ci/run installs debootstrap)")
		}
	}
	return rt
}

// fixtureImage builds the fixture's image once per test process.
var (
	imageOnce sync.Once
	imageErr  error
)

const fixtureTag = "localhost/swetouch-test/tinycalc:base"

func fixtureImage(t *testing.T, rt *Runtime) string {
	t.Helper()
	in := pyInstance(t)
	imageOnce.Do(func() {
		var log limitedBuffer
		imageErr = Build(context.Background(), rt, Spec{Tag: fixtureTag, Repo: in.Repo, Commit: in.Base}, WithLog(&log))
		if imageErr != nil {
			imageErr = errors.New(imageErr.Error() + "\n" + log.String())
		}
	})
	if imageErr != nil {
		t.Fatal(imageErr)
	}
	return fixtureTag
}

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// countingBwrap is a bwrap that notes each time it runs in a file, then
// is the real one (or fails, when fail is set).
func countingBwrap(t *testing.T, dir string, fail bool) (bwrap, count string) {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		testsupport.Missing(t, testsupport.Bwrap, "no bwrap here: %v", err)
	}
	bwrap, count = filepath.Join(dir, "bwrap"), filepath.Join(dir, "count")
	script := "#!/bin/sh\necho run >> " + count + "\nexec " + real + " \"$@\"\n"
	if fail {
		script = "#!/bin/sh\necho run >> " + count + "\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
	}
	if err := os.WriteFile(bwrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bwrap, count
}

func runs(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run")
}

// A check that passed is remembered for the same bwrap, and only that
// one: another bwrap, a check told not to remember, and a sandbox that
// could not be made all run bwrap again.
func TestCheckRemembered(t *testing.T) {
	need(t)
	dir := t.TempDir()
	bwrap, count := countingBwrap(t, dir, false)
	file := filepath.Join(dir, "cache", "bwrap-check")
	check := func(remember string) error { return (&Runner{Bwrap: bwrap, Remember: remember}).Check() }

	if err := check(file); err != nil || runs(t, count) != 1 {
		t.Fatalf("first check: %v, bwrap ran %d times, want once", err, runs(t, count))
	}
	if err := check(file); err != nil || runs(t, count) != 1 {
		t.Fatalf("second check: %v, bwrap ran %d times, want still once", err, runs(t, count))
	}
	if err := check("-"); err != nil || runs(t, count) != 2 {
		t.Fatalf("a check that remembers nothing: %v, bwrap ran %d times, want twice", err, runs(t, count))
	}

	// another bwrap in its place: asked again
	script, _ := os.ReadFile(bwrap)
	if err := os.WriteFile(bwrap, append(script, "# another build\n"...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := check(file); err != nil || runs(t, count) != 3 {
		t.Fatalf("a changed bwrap: %v, bwrap ran %d times, want 3", err, runs(t, count))
	}

	// a sandbox that bwrap could not make forgets the check
	r := &Runner{Bwrap: bwrap, Remember: file}
	_, err := run(t, r, Spec{Writable: []string{dir}, Dir: "/nonexistent"}, "exit 0")
	var se *SetupError
	if !errors.As(err, &se) {
		t.Fatalf("a sandbox that could not be made: %v", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the check is still remembered after a SetupError: %v", err)
	}
	before := runs(t, count)
	if err := check(file); err != nil || runs(t, count) != before+1 {
		t.Fatalf("after a SetupError: %v, bwrap ran %d more times, want once", err, runs(t, count)-before)
	}
}

// A check that fails is never remembered, and says why.
func TestCheckFailureNotRemembered(t *testing.T) {
	dir := t.TempDir()
	bwrap, count := countingBwrap(t, dir, true)
	file := filepath.Join(dir, "bwrap-check")
	for i := 1; i <= 2; i++ {
		err := (&Runner{Bwrap: bwrap, Remember: file}).Check()
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "No permissions") {
			t.Fatalf("check %d: err = %v", i, err)
		}
		if runs(t, count) != i {
			t.Fatalf("check %d: bwrap ran %d times", i, runs(t, count))
		}
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed check was remembered: %v", err)
	}
}

// The key changes with what decides whether bwrap can run, and only so.
func TestProbeKey(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("x"), 0o755)
	os.WriteFile(b, []byte("x"), 0o755)
	ka, ok := probeKey(a)
	if !ok {
		t.Skip("this machine's boot or namespaces cannot be read: nothing is remembered here")
	}
	if again, _ := probeKey(a); again != ka {
		t.Fatal("the key of one bwrap changed between two asks")
	}
	if kb, _ := probeKey(b); kb == ka {
		t.Fatal("two bwraps at different paths share a key")
	}
	if _, ok := probeKey(filepath.Join(dir, "missing")); ok {
		t.Fatal("a bwrap that is not there has a key")
	}
}

package testsupport

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRequired: names, all, blanks, and a typo refused by name.
func TestRequired(t *testing.T) {
	req, err := Required(" corpus, bwrap,,")
	if err != nil || len(req) != 2 || !req[Corpus] || !req[Bwrap] {
		t.Errorf("corpus,bwrap: %v %v", req, err)
	}
	if req, _ := Required("all"); len(req) != len(Prereqs()) {
		t.Errorf("all: %v", req)
	}
	if req, _ := Required(""); len(req) != 0 {
		t.Errorf("empty: %v", req)
	}
	var unknown *UnknownPrereqError
	if _, err := Required("corpus,chrome"); !errors.As(err, &unknown) || unknown.Name != "chrome" {
		t.Errorf("chrome: %v", err)
	}
}

// TestMissingSkipsOrFails runs TestMissingChild in a child go test
// process: with nothing required it skips, saying why; with its
// prerequisite required it fails, saying why and what required it; with
// another required it still skips.
func TestMissingSkipsOrFails(t *testing.T) {
	if os.Getenv("SWETOUCH_MISSING_CHILD") != "" {
		t.Skip("the child")
	}
	for _, c := range []struct {
		require string
		fail    bool
		want    string
	}{
		{"", false, "--- SKIP: TestMissingChild"},
		{"chromium", false, "--- SKIP: TestMissingChild"},
		{"corpus", true, "corpus is missing and SWETOUCH_REQUIRE=corpus requires it: no corpus at /nowhere"},
		{"all", true, "--- FAIL: TestMissingChild"},
		{"corpse", true, `unknown prerequisite "corpse"`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingChild$", "-test.v")
		cmd.Env = append(os.Environ(), "SWETOUCH_MISSING_CHILD=1", RequireEnv+"="+c.require)
		out, err := cmd.CombinedOutput()
		if (err != nil) != c.fail || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "no corpus at /nowhere") && c.want[0] == '-' {
			t.Errorf("%s=%q: err %v, output:\n%s", RequireEnv, c.require, err, out)
		}
	}
}

// TestMissingChild is the child TestMissingSkipsOrFails runs.
func TestMissingChild(t *testing.T) {
	if os.Getenv("SWETOUCH_MISSING_CHILD") == "" {
		t.Skip("run by TestMissingSkipsOrFails")
	}
	Missing(t, Corpus, "no corpus at %s", "/nowhere")
	t.Error("Missing returned")
}

// TestDegradedLogsOrFails: Degraded logs and lets the test go on, or
// fails it where its prerequisite is required.
func TestDegradedLogsOrFails(t *testing.T) {
	if os.Getenv("SWETOUCH_MISSING_CHILD") != "" {
		t.Skip("the child")
	}
	for _, c := range []struct {
		require string
		fail    bool
		want    string
	}{
		{"", false, "went on"},
		{"bwrap", true, "bwrap is missing and SWETOUCH_REQUIRE requires it: unsandboxed"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDegradedChild$", "-test.v")
		cmd.Env = append(os.Environ(), "SWETOUCH_MISSING_CHILD=1", RequireEnv+"="+c.require)
		out, err := cmd.CombinedOutput()
		if (err != nil) != c.fail || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "unsandboxed") {
			t.Errorf("%s=%q: err %v, output:\n%s", RequireEnv, c.require, err, out)
		}
	}
}

// TestDegradedChild is the child TestDegradedLogsOrFails runs.
func TestDegradedChild(t *testing.T) {
	if os.Getenv("SWETOUCH_MISSING_CHILD") == "" {
		t.Skip("run by TestDegradedLogsOrFails")
	}
	Degraded(t, Bwrap, "unsandboxed")
	t.Log("went on")
}

package container

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestContainerAddsLittle measures what running a trial in a container
// adds over the same trial in place on the host (the same checkout, task,
// agent and verifier; swetouch run --in-place), container start and
// removal included, and reports it as a ratio to the container's own
// `true` (start, run, remove). The bound is 2 s added; the
// medians of three interleaved rounds are compared.
func TestContainerAddsLittle(t *testing.T) {
	rt := needRuntime(t)
	in := pyInstance(t)
	img := fixtureImage(t, rt)
	taskDir := taskFor(t, in, img)
	if _, err := exec.Command("python3", "-m", "pytest", "--version").CombinedOutput(); err != nil {
		t.Skip("no pytest on the host: the same trial cannot run in place here")
	}
	benchAdded(t, rt, img, taskDir, func(ws string) error { return Checkout(context.Background(), in.Repo, in.Base, ws) })
}

// TestContainerAddsLittleOnSympy is the same measure on a sympy-sized
// checkout (sympy__sympy-21847's base from the mirror: 1,500 folders,
// 1,600 Python files), whose size is what copying the workspace, taking
// its start and checking its history cost. test.sh only looks at the
// checkout, so the two sides' Pythons (the image's and the host's) do
// not enter the difference.
func TestContainerAddsLittleOnSympy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the sympy bench builds sympy's image")
	}
	rt := needRuntime(t)
	r, mirror := devInstance(t, "sympy__sympy-21847")
	tag := "localhost/swetouch-test/sympy__sympy-21847:base"
	var log limitedBuffer
	if err := Build(t.Context(), rt, Spec{Tag: tag, Repo: mirror, Commit: r.BaseCommit, Packages: []string{"python-is-python3", "python3-mpmath"}}, WithLog(&log)); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	taskDir := filepath.Join(t.TempDir(), r.InstanceID)
	for p, s := range map[string]string{
		"instruction.md": r.Problem,
		"task.toml":      "[task]\nname = \"" + r.InstanceID + "\"\n\n[environment]\ndocker_image = \"" + tag + "\"\nworkdir = \"/testbed\"\n\n[verifier]\nrunner = \"none\"\n",
		"tests/test.sh":  "#!/bin/bash\ntest -f setup.py && test -d sympy/core\n",
	} {
		if err := os.MkdirAll(filepath.Join(taskDir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(taskDir, p), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	benchAdded(t, rt, tag, taskDir, func(ws string) error { return Checkout(context.Background(), mirror, r.BaseCommit, ws) })
}

// benchAdded runs a no-op agent's trial on taskDir three times each way,
// in a container of img and in place on a host checkout made by
// checkout, with the container's own `true` between, and fails past 2 s
// added.
func benchAdded(t *testing.T, rt *Runtime, img, taskDir string, checkout func(ws string) error) {
	t.Helper()
	exe := filepath.Join(binaries(t), "swetouch")
	ctx := context.Background()
	timed := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	// the limits off in both: the sandbox inside a container cannot set
	// them, and setting them on the host is work the container skips
	var lastOut string
	run := func(args ...string) error {
		lastOut = filepath.Join(t.TempDir(), "run")
		c := exec.Command(exe, append(append([]string{"run", "--task", taskDir, "--out", lastOut, "--pids-limit", "0", "--memory-limit", "0"}, args...), "--", "/bin/true")...)
		if b, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, b)
		}
		return nil
	}
	resolved := func() {
		var r struct {
			Resolved *bool `json:"resolved"`
		}
		if b, err := os.ReadFile(filepath.Join(lastOut, "result.json")); err != nil || json.Unmarshal(b, &r) != nil || r.Resolved == nil {
			t.Fatalf("the trial ended without a verdict: %v", err)
		}
	}
	var inCtr, inside, inPlace, truth []time.Duration
	for range 3 {
		inCtr = append(inCtr, timed(func() error { return run("--runtime", rt.Name) }))
		resolved()
		var r struct {
			Timings struct {
				Total float64 `json:"total_s"`
			} `json:"timings"`
		}
		if b, err := os.ReadFile(filepath.Join(lastOut, "result.json")); err != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("result.json: %v", err)
		}
		inside = append(inside, time.Duration(r.Timings.Total*float64(time.Second)))
		ws := filepath.Join(t.TempDir(), "testbed")
		if err := checkout(ws); err != nil {
			t.Fatal(err)
		}
		inPlace = append(inPlace, timed(func() error { return run("--in-place", ws) }))
		resolved()
		truth = append(truth, timed(func() error { _, err := TrueTime(ctx, rt, img); return err }))
	}
	c, p, tr, ins := median(inCtr), median(inPlace), median(truth), median(inside)
	added := c - p
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	t.Logf("trial in a container %v (its run inside %v: the container's own part %v), in place on the host %v: added %v; %s run true %v; added/true %.2f, container's part/true %.2f",
		ms(c), ms(ins), ms(c-ins), ms(p), ms(added), rt.Name, ms(tr), float64(added)/float64(tr), float64(c-ins)/float64(tr))
	if added > 2*time.Second {
		t.Errorf("a trial in a container added %v over the same trial in place, past the issue's 2 s", added)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

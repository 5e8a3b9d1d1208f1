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
	// the host's task has an empty repo/ (its code is the checkout),
	// as the container's staged copy has
	if err := os.Mkdir(filepath.Join(taskDir, "repo"), 0o755); err != nil {
		t.Fatal(err)
	}
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
	var inCtr, inside, inPlace, truth []time.Duration
	for range 3 {
		inCtr = append(inCtr, timed(func() error { return run("--runtime", testRuntime()) }))
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
		if err := Checkout(ctx, in.Repo, in.Base, ws); err != nil {
			t.Fatal(err)
		}
		inPlace = append(inPlace, timed(func() error { return run("--in-place", ws) }))
		truth = append(truth, timed(func() error { _, err := TrueTime(ctx, rt, img); return err }))
	}
	c, p, tr, ins := median(inCtr), median(inPlace), median(truth), median(inside)
	added := c - p
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	t.Logf("trial in a container %v (its run inside %v: the container's own part %v), in place on the host %v: added %v; podman run true %v; added/true %.2f, container's part/true %.2f",
		ms(c), ms(ins), ms(c-ins), ms(p), ms(added), ms(tr), float64(added)/float64(tr), float64(c-ins)/float64(tr))
	if added > 2*time.Second {
		t.Errorf("a trial in a container added %v over the same trial in place, past the issue's 2 s", added)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

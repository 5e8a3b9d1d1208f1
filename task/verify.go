package task

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swetouch/swetouch/sandbox"
)

// Verdict is the verifier's answer: Resolved is nil when the verifier
// itself could not run (infrastructure error), with the reason.
type Verdict struct {
	Resolved *bool         `json:"resolved"`
	Reason   string        `json:"reason,omitempty"`
	Exit     int           `json:"exit"`
	Output   string        `json:"output,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// LeftOut are the workspace's entries the tests' copy does not hold,
	// each with why: what is not a regular file, a directory or a link
	// inside the workspace.
	LeftOut []string `json:"left_out,omitempty"`
	// Tests are the per-test results test.sh wrote to $SWETOUCH_RESULTS
	// (WithTests): "pass", "fail" or "error" by test id; nil when it
	// wrote none.
	Tests map[string]string `json:"tests,omitempty"`
	// Listed is what came of the tests the task lists (FAIL_TO_PASS,
	// PASS_TO_PASS): which failed; nil when it lists none or test.sh
	// reported no per-test results.
	Listed *ListedResults `json:"listed,omitempty"`
	// PathDropped are the entries of the tests' PATH that were empty or
	// relative (lookups in the agent's copy), dropped before they ran.
	PathDropped []string `json:"path_dropped,omitempty"`
	// Canaries are the run's canaries and what came of them (nil when
	// the tests never ran).
	Canaries *Canaries `json:"canaries,omitempty"`
}

// VerifyOption configures Verify.
type VerifyOption func(*verifier)

type verifier struct {
	sandbox sandbox.Setup
	tests   []string // WithTests
	perTest bool
	source  string // WithTestSource
	budget  *Budget
	random  io.Reader // WithRandom
}

// WithRandom is where the canaries' names come from (crypto/rand unless
// given): a test gives a seeded source to make them known.
func WithRandom(r io.Reader) VerifyOption { return func(v *verifier) { v.random = r } }

// WithBudget bounds the workspace's copy (DefaultBudget unless given; a
// zero field is no bound). A workspace past it is not resolved, with the
// reason: its size is the agent's doing.
func WithBudget(b Budget) VerifyOption { return func(v *verifier) { v.budget = &b } }

// TestSourceWorkspace is the test source that runs the tests as the
// workspace holds them (an agent's rewrite), not the canonical ones.
const TestSourceWorkspace = "workspace"

// WithTestSource tells test.sh where the tests come from
// ($SWETOUCH_TEST_SOURCE): "workspace" runs the workspace's own test
// files as the agent left them rather than the canonical copies, for the
// gates of an equivalent pass (docs/conversation.md).
func WithTestSource(s string) VerifyOption { return func(v *verifier) { v.source = s } }

// WithTests asks test.sh for per-test results: it runs the ids in
// $SWETOUCH_TESTS (space-separated; all when empty) and writes
// {"ID": "pass"|"fail"|"error"} or JUnit XML to $SWETOUCH_RESULTS, which
// Verdict.Tests then holds. A multi-turn task's tests run so after every
// turn.
func WithTests(ids ...string) VerifyOption {
	return func(v *verifier) { v.tests, v.perTest = ids, true }
}

// WithSandbox runs the tests as s sets up (a nil Runner: unsandboxed),
// its Env added to their environment and its Visible shown read-only
// beside the system directories. The tests run the agent's code: in a
// sandbox it sees the workspace's copy and the tests, and cannot reach
// the task, the output folder or the agent's own workspace.
func WithSandbox(s sandbox.Setup) VerifyOption { return func(v *verifier) { v.sandbox = s } }

// Verify runs the task's tests/test.sh against a copy of workspace, with
// the tests copied beside it (TESTS_DIR) from the task, so neither the
// agent's workspace nor the task is touched, and nothing the agent wrote
// decides which tests run. Exit 0 is resolved; any other exit, and a
// timeout, is not: what the agent left in its workspace decides them.
// Only a verifier that cannot run here is an infrastructure error (nil):
// a copy or a sandbox that could not be made, or test.sh exiting 126 or
// 127 (a program it needs is missing) when it does the same for the
// task's reference solution (or, with none, its starting code). So an
// agent cannot turn its failure into an error that scores leave out.
func Verify(ctx context.Context, t *Task, workspace string, opts ...VerifyOption) Verdict {
	var vc verifier
	for _, o := range opts {
		o(&vc)
	}
	// a task that lists its tests is graded per test every time
	vc.perTest = vc.perTest || t.Listed()
	start := time.Now()
	v := vc.verify(ctx, t, workspace)
	if v.Resolved != nil && !*v.Resolved && (v.Exit == 126 || v.Exit == 127) {
		vc.crossCheck(ctx, t, &v)
	}
	v.Duration = time.Since(start)
	return v
}

// crossCheck decides whether a verdict of a program not found is the
// agent's or the machine's, by verifying the reference solution (or the
// starting code, when the task has none) the same way.
func (vc verifier) crossCheck(ctx context.Context, t *Task, v *Verdict) {
	if t.Repo == "" {
		// the code is the image's: nothing here to check against
		v.Resolved, v.Reason = nil, notHere(*v)
		return
	}
	against, dir := "the task's starting code", t.Repo
	if t.Solution != "" {
		against = "the task's reference solution"
		tmp, err := os.MkdirTemp("", "swetouch-reference-")
		if err != nil {
			v.Resolved, v.Reason = nil, err.Error()
			return
		}
		defer os.RemoveAll(tmp)
		if _, err := CopyRegular(t.Repo, tmp); err != nil {
			v.Resolved, v.Reason = nil, "copying the task's code: "+err.Error()
			return
		}
		if out, err := RunSolution(ctx, t, tmp, WithSandbox(vc.sandbox)); err != nil {
			v.Resolved, v.Reason = nil, fmt.Sprintf("test.sh exit %d, and the reference solution does not run here: %v: %s", v.Exit, err, tail(string(bytes.TrimSpace(out)), 400))
			return
		}
		dir = tmp
	}
	ref := vc.verify(ctx, t, dir)
	switch {
	case ref.Resolved == nil:
		v.Resolved, v.Reason = nil, fmt.Sprintf("test.sh exit %d; on %s the verifier does not run: %s", v.Exit, against, ref.Reason)
	case t.Solution != "" && !*ref.Resolved, t.Solution == "" && ref.Exit == v.Exit:
		v.Resolved, v.Reason = nil, fmt.Sprintf("test.sh exit %d here, and %s on %s: the verifier cannot run on this machine", v.Exit, describe(ref), against)
	default:
		v.Reason += fmt.Sprintf(" (%s on %s)", describe(ref), against)
	}
}

func describe(v Verdict) string {
	switch {
	case v.Resolved != nil && *v.Resolved:
		return "resolved"
	case v.Reason != "":
		return v.Reason
	}
	return fmt.Sprintf("test.sh exit %d", v.Exit)
}

// verify runs the tests once.
func (vc verifier) verify(ctx context.Context, t *Task, workspace string) Verdict {
	tmp, err := os.MkdirTemp("", "swetouch-verify-")
	if err != nil {
		return Verdict{Reason: err.Error()}
	}
	defer os.RemoveAll(tmp)
	ws, tests := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "tests")
	left, failed := vc.copyWorkspace(t, workspace, ws)
	if failed != nil {
		return *failed
	}
	if _, err := CopyRegular(t.Tests, tests); err != nil {
		return Verdict{Reason: "copying the tests: " + err.Error()}
	}
	marks := filepath.Join(tmp, "canaries")
	report, cs, err := vc.placeCanaries(t, tests, ws, marks)
	if err != nil {
		return Verdict{Reason: "placing the canaries: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	cmd := exec.Command("/bin/bash", filepath.Join(tests, "test.sh"))
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "TESTS_DIR="+tests, "WORKSPACE="+ws)
	results := filepath.Join(tmp, "results")
	writable := []string{ws, marks}
	if vc.perTest {
		if err := os.Mkdir(results, 0o755); err != nil {
			return Verdict{Reason: err.Error()}
		}
		writable = append(writable, results)
		cmd.Env = append(cmd.Env, "SWETOUCH_TESTS="+strings.Join(vc.testIDs(cs), " "), "SWETOUCH_RESULTS="+filepath.Join(results, "results"))
	}
	if vc.source != "" {
		cmd.Env = append(cmd.Env, "SWETOUCH_TEST_SOURCE="+vc.source)
	}
	if vc.sandbox.Runner != nil {
		cmd.Env = append(append(cmd.Env, vc.sandbox.Env...), "TMPDIR=/tmp")
	}
	var dropped []string
	cmd.Env, dropped = safePath(cmd.Env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = processGroup()
	err = vc.runHidden(ctx, t, cmd, writable, []string{tests})
	var setup *startError
	if errors.As(err, &setup) {
		return Verdict{Reason: setup.Error()}
	}
	v := Verdict{Output: tail(out.String(), 4000), LeftOut: left, PathDropped: dropped, Canaries: report}
	if vc.perTest {
		if b, err := os.ReadFile(filepath.Join(results, "results")); err == nil {
			if v.Tests, err = ParseResults(b); err != nil {
				v.Output += "\nswetouch: the per-test results: " + err.Error()
			}
		}
	}
	exited(&v, err, ctx.Err() != nil, t.Timeout)
	vc.judge(&v, cs, marks)
	judgeListed(t, &v)
	return v
}

// testIDs are the tests test.sh is asked to run: those of WithTests
// and, named, the canaries beside them (none named: all run).
func (vc verifier) testIDs(cs []canary) []string {
	if len(vc.tests) == 0 {
		return nil
	}
	return append(slices.Clone(vc.tests), canaryNames(cs)...)
}

// copyWorkspace copies the workspace for the tests within the budget;
// the verdict is for a copy that could not be made: false when what the
// agent left is the cause, null when the machine is.
func (vc verifier) copyWorkspace(t *Task, workspace, ws string) ([]string, *Verdict) {
	budget := DefaultBudget()
	if vc.budget != nil {
		budget = *vc.budget
	}
	left, err := CopyRegular(workspace, ws, CopyWithin(budget))
	var we *WorkspaceError
	var full *DiskFullError
	switch {
	case errors.As(err, &we):
		// what the agent left cannot be tested: its failure, not ours
		return left, &Verdict{Resolved: ptr(false), Exit: -1, Reason: we.Error(), LeftOut: left}
	case errors.As(err, &full):
		// the disk filled: the agent's doing when its workspace grew well
		// past the task's own code, the machine's when it did not
		base := allocated(t.Repo)
		if full.Bytes > 2*base+grownBy {
			return left, &Verdict{Resolved: ptr(false), Exit: -1, LeftOut: left,
				Reason: fmt.Sprintf("the workspace filled the verifier's disk: %s copied, where the task's code takes %s", bytesOf(full.Bytes), bytesOf(base))}
		}
		return left, &Verdict{Reason: fmt.Sprintf("copying the workspace: the verifier's disk is full with %s copied, no more than the task's own code (%s) allows: the machine's: %v", bytesOf(full.Bytes), bytesOf(base), full.Err)}
	case err != nil:
		return left, &Verdict{Reason: fmt.Sprintf("copying the workspace (within the verifier's budget, so the machine's fault): %v", err)}
	}
	return left, nil
}

// exited reads test.sh's end into v: exit 0 resolved, any other exit
// and a timeout not, a sandbox that could not be made or a wait that
// failed no verdict.
func exited(v *Verdict, err error, timedOut bool, timeout time.Duration) {
	var ee *exec.ExitError
	var se *sandbox.SetupError
	switch {
	case errors.As(err, &se):
		v.Reason = se.Error()
	case timedOut:
		v.Exit, v.Resolved, v.Reason = -1, ptr(false), fmt.Sprintf("tests timed out after %s", timeout)
	case err == nil:
		v.Resolved = ptr(true)
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		v.Exit, v.Resolved = 1, ptr(false)
	case errors.As(err, &ee):
		v.Exit, v.Resolved, v.Reason = ee.ExitCode(), ptr(false), fmt.Sprintf("test.sh exit %d", ee.ExitCode())
	default:
		v.Reason = err.Error()
	}
}

// placeCanaries places the run's canaries in the tests' and the
// workspace's copies, and says where, or why not.
func (vc verifier) placeCanaries(t *Task, tests, ws, marks string) (*Canaries, []canary, error) {
	// where the canaries leave their marks, writable in the sandbox
	if err := os.Mkdir(marks, 0o777); err != nil {
		return nil, nil, err
	}
	sh, err := os.ReadFile(filepath.Join(tests, "test.sh"))
	if err != nil {
		return nil, nil, err
	}
	runner, why := runnerOf(t, string(sh))
	report := &Canaries{Runner: runner, Unchecked: why}
	if runner == "" {
		return report, nil, nil
	}
	rnd := vc.random
	if rnd == nil {
		rnd = rand.Reader
	}
	cs, why, err := placeCanaries(runner, tests, ws, marks, string(sh), rnd)
	report.Unchecked = why
	for _, c := range cs {
		report.Placed = append(report.Placed, c.file)
	}
	return report, cs, err
}

// judge holds a run that claims a pass (a green exit, or a test
// reported passing) to its canaries and, with WithTests, a green run to
// every expected test's own pass. A run that claims none is not judged
// by them: its code may fail before any test runs, which is no
// tampering.
func (vc verifier) judge(v *Verdict, cs []canary, marks string) {
	green := v.Resolved != nil && *v.Resolved
	if v.Resolved == nil || !green && !slices.Contains(slices.Collect(maps.Values(withoutCanaries(v.Tests, cs))), "pass") {
		v.Tests = withoutCanaries(v.Tests, cs)
		return
	}
	if why := checkCanaries(cs, marks, v.Tests); why != "" {
		if green {
			v.Reason = "tampered: " + why
		} else {
			v.Reason = strings.TrimPrefix(v.Reason+"; tampered: "+why, "; ")
		}
		v.Resolved = ptr(false)
		v.Canaries.Tampered = why
		// no test's result can be believed either
		v.Tests = nil
		return
	}
	v.Tests = withoutCanaries(v.Tests, cs)
	if !vc.perTest || !green {
		return
	}
	for _, id := range vc.tests {
		if r := v.Tests[id]; r != "pass" {
			if r == "" {
				r = "no result"
			}
			v.Resolved, v.Reason = ptr(false), fmt.Sprintf("test.sh exit 0, but expected test %s reported %s", id, r)
			return
		}
	}
}

// grownBy is how much past twice the task's code a workspace may take
// before a disk it fills is its own doing.
const grownBy = 64 << 20

func ptr[T any](v T) *T { return &v }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

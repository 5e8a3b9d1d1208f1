package swebench

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/task"
)

// gradeBinary builds swetouch for the tests' test.sh (SWETOUCH_GRADE),
// once per test binary's run of a test.
func gradeBinary(t *testing.T) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "swetouch")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/swetouch").CombinedOutput(); err != nil {
		t.Fatalf("building swetouch: %v: %s", err, out)
	}
	t.Setenv("SWETOUCH_GRADE", bin)
}

// sympyPython skips t unless python (bin/test's interpreter) imports
// mpmath here. The dev rows were verified on Debian 12's Python 3.11.2
// with mpmath 1.2.1 (their README).
func sympyPython(t *testing.T) {
	out, err := exec.Command("python", "-c", "import sys, mpmath; print(sys.version.split()[0], mpmath.__version__)").CombinedOutput()
	if err != nil {
		t.Skipf("sympy's bin/test needs `python` with mpmath (the dev rows were verified on Python 3.11.2, mpmath 1.2.1): %v: %s", err, out)
	}
	t.Logf("python %s here (the dev rows' README: 3.11.2 with mpmath 1.2.1)", strings.TrimSpace(string(out)))
}

// workspace is a fresh git workspace of repo, as swetouch makes one: the
// base state as its one commit (no base_commit in its history).
func workspace(t *testing.T, repo string) string {
	ws := t.TempDir()
	if _, err := task.CopyRegular(repo, ws); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return ws
}

// devTask writes the dev row's task with its base commit's tree from the
// sympy mirror and loads it.
func devTask(t *testing.T, in Instance) *task.Task {
	dir, err := WriteTask(in, t.TempDir(), WithRepo(sympyMirror(t)))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Name != in.InstanceID || tk.Workdir != Workdir || !slices.Equal(tk.FailToPass, in.FailToPass) || tk.CodeInImage() {
		t.Fatalf("loaded %+v", tk)
	}
	return tk
}

// TestDevRowsReproduce runs each dev row's test.sh, as the verifier runs
// it, on the base with the test patch alone and with the gold patch: the
// tests failing before and passing after are exactly FAIL_TO_PASS, those
// passing in both exactly PASS_TO_PASS, and the gold patch resolves.
func TestDevRowsReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: six runs of sympy's tests")
	}
	ins := devRows(t)
	sympyMirror(t)
	sympyPython(t)
	gradeBinary(t)
	for _, in := range ins {
		t.Run(in.InstanceID, func(t *testing.T) {
			tk := devTask(t, in)
			ctx := context.Background()
			before := task.Verify(ctx, tk, workspace(t, tk.Repo))
			ws := workspace(t, tk.Repo)
			if out, err := task.RunSolution(ctx, tk, ws); err != nil {
				t.Fatalf("gold patch: %v: %s", err, out)
			}
			after := task.Verify(ctx, tk, ws)
			if before.Resolved == nil || *before.Resolved || after.Resolved == nil || !*after.Resolved {
				t.Fatalf("no-op %v (%s), gold %v (%s): want false then true\n%s", show(before.Resolved), before.Reason, show(after.Resolved), after.Reason, after.Output)
			}
			var f2p, p2p []string
			for id, r := range after.Tests {
				switch {
				case r == "pass" && before.Tests[id] != "pass" && before.Tests[id] != "skip":
					f2p = append(f2p, id)
				case r == "pass" && before.Tests[id] == "pass":
					p2p = append(p2p, id)
				}
			}
			slices.Sort(f2p)
			slices.Sort(p2p)
			if want := sorted(in.FailToPass); !slices.Equal(f2p, want) {
				t.Errorf("FAIL_TO_PASS reproduced %v, the row's %v", f2p, want)
			}
			if want := sorted(in.PassToPass); !slices.Equal(p2p, want) {
				t.Errorf("PASS_TO_PASS reproduced %d %v, the row's %d %v", len(p2p), p2p, len(want), want)
			}
			if l := after.Listed; l == nil || len(l.FailToPassFailed)+len(l.PassToPassFailed) != 0 {
				t.Errorf("gold: listed %+v", l)
			}
			if l := before.Listed; l == nil || !slices.Equal(l.FailToPassFailed, []string(in.FailToPass)) || len(l.PassToPassFailed) != 0 {
				t.Errorf("no-op: listed %+v, want FAIL_TO_PASS failed", l)
			}
		})
	}
}

// TestDevRowGate gates the released SWE-Touch record's Counter-Edit of a
// dev row on its FAIL_TO_PASS tests (V^F): the gold patch alone passes
// them, the Counter-Edit alone and the Counter-Edit then the gold patch
// do not (the dev rows' README: the gate holds).
func TestDevRowGate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three states of sympy's tests")
	}
	in := devRow(t, "sympy__sympy-21847")
	records := filepath.Join(filepath.Dir(filepath.Dir(devInstances())), "swe-touch-v0.1.2", "swe_bench_verified.jsonl")
	recs, err := task.LoadRecords(records)
	if err != nil {
		t.Skipf("the released records: %v", err)
	}
	sympyMirror(t)
	sympyPython(t)
	gradeBinary(t)
	rec, err := task.Find(recs, in.InstanceID)
	if err != nil {
		t.Fatal(err)
	}
	tk := devTask(t, in)
	iv := rec.CounterEdit.Interventions[0]
	g := author.Gate(context.Background(), tk, in.InstanceID, iv.Patch.ID, iv.Patch.Diff, "")
	if p := g.Passes(); p == nil || !*p {
		t.Fatalf("gate %+v: want it to pass", g)
	}
	for name, o := range map[string]author.Outcome{"reference_only": g.ReferenceOnly, "user_edit_only": g.UserEditOnly, "user_edit_plus_reference": g.UserEditPlusReference} {
		if o.JudgedOn != "FAIL_TO_PASS" {
			t.Errorf("%s judged on %q, want FAIL_TO_PASS", name, o.JudgedOn)
		}
	}
	if !slices.Equal(g.UserEditOnly.FailToPassFailed, []string(in.FailToPass)) {
		t.Errorf("user_edit_only failed %v, want %v", g.UserEditOnly.FailToPassFailed, in.FailToPass)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func show(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}

package swebench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// devInstances is the dev rows' file: under SWETOUCH_SHARED, by default
// the shared folder beside the repository (as internal/devdata finds it).
func devInstances() string {
	d := os.Getenv("SWETOUCH_SHARED")
	if d == "" {
		d = filepath.Join("..", "..", "shared")
	}
	return filepath.Join(d, "data", "swebench-dev", "instances.jsonl")
}

// sympyMirror is the bare sympy mirror (SWETOUCH_MIRRORS, default
// /work/.mirror), skipping tb when it is absent.
func sympyMirror(tb testing.TB) string {
	root := os.Getenv("SWETOUCH_MIRRORS")
	if root == "" {
		root = "/work/.mirror"
	}
	d := filepath.Join(root, "sympy+sympy", "repo")
	if _, err := os.Stat(d); err != nil {
		tb.Skipf("no sympy mirror at %s (fetch github:sympy/sympy, or set SWETOUCH_MIRRORS)", d)
	}
	return d
}

// devRows are the SWE-bench-format sympy rows of ../shared/data, skipping
// tb when they are absent.
func devRows(tb testing.TB) []Instance {
	tb.Helper()
	path := devInstances()
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("no dev instances at %s: %v", path, err)
	}
	ins, err := ReadInstances(path)
	if err != nil {
		tb.Fatal(err)
	}
	return ins
}

func devRow(tb testing.TB, id string) Instance {
	for _, in := range devRows(tb) {
		if in.InstanceID == id {
			return in
		}
	}
	tb.Fatalf("no dev row %s", id)
	return Instance{}
}

// TestGradeSympyLogs grades the committed sympy logs: the gold patch's
// resolves with every listed test passed, the test patch alone does not,
// with exactly the FAIL_TO_PASS tests failed.
func TestGradeSympyLogs(t *testing.T) {
	for _, id := range []string{"20154", "24213"} {
		in := devRow(t, "sympy__sympy-"+id)
		for _, c := range []struct {
			log      string
			resolved bool
		}{{"gold", true}, {"noop", false}} {
			b, err := os.ReadFile(filepath.Join("testdata", "logs", "sympy-"+id+"-"+c.log+".log"))
			if err != nil {
				t.Fatal(err)
			}
			rep, m, err := GradeLog(in, b)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Resolved != c.resolved || !rep.Applied {
				t.Errorf("%s %s: resolved %v applied %v, want %v", in.InstanceID, c.log, rep.Resolved, rep.Applied, c.resolved)
			}
			if len(rep.PassToPass.Failure) != 0 || len(rep.PassToPass.Success) != len(in.PassToPass) {
				t.Errorf("%s %s: PASS_TO_PASS failed %v", in.InstanceID, c.log, rep.PassToPass.Failure)
			}
			wantF := []string{}
			if !c.resolved {
				wantF = in.FailToPass
			}
			if !slices.Equal(rep.FailToPass.Failure, wantF) {
				t.Errorf("%s %s: FAIL_TO_PASS failed %v, want %v", in.InstanceID, c.log, rep.FailToPass.Failure, wantF)
			}
			if len(m) == 0 {
				t.Errorf("%s %s: no tests parsed", in.InstanceID, c.log)
			}
		}
	}
}

// TestGradeDifferential holds StatusMap and Grade to the official
// get_logs_eval and report, on the committed logs and on the harness's
// own edge cases: markers missing, a harness failure line, nothing
// between the markers (the whole log parsed), a skipped listed test.
func TestGradeDifferential(t *testing.T) {
	o := startOfficial(t)
	in := devRow(t, "sympy__sympy-20154")
	logs := map[string]string{
		"no markers":       "test_partitions ok\n",
		"harness failure":  StartMarker + "\ntest_partitions ok\n>>>>> Patch Apply Failed\n" + EndMarker + "\n",
		"empty between":    "test_partitions ok\n" + StartMarker + "\n" + EndMarker + "\ntest_uniq ok\n",
		"markers twice":    StartMarker + "\ntest_uniq ok\n" + StartMarker + "\ntest_partitions ok\n" + EndMarker,
		"end before start": EndMarker + "\n" + StartMarker + "\ntest_uniq ok\n",
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		logs[filepath.Base(p)] = string(b)
	}
	variants := []Instance{in}
	skipped := in
	skipped.Repo, skipped.Version = "pytest-dev/pytest", "8.3"
	skipped.FailToPass, skipped.PassToPass = Tests{"test_demo.py::test_skip", "test_demo.py::test_pass"}, Tests{"test_demo.py::test_xfail", "test_demo.py::test_fail"}
	variants = append(variants, skipped)
	for name, log := range logs {
		for _, v := range variants {
			rep, m, err := GradeLog(v, []byte(log))
			want := o.grade(t, v, log)
			if d := sameAsOfficial(m, err, want); d != "" {
				t.Errorf("%s (%s): status map: %s", name, v.Repo, d)
				continue
			}
			if want.Error != "" {
				continue
			}
			if rep.Applied != want.Found || rep.Resolved != want.Resolved {
				t.Errorf("%s (%s): applied %v resolved %v, official %v %v", name, v.Repo, rep.Applied, rep.Resolved, want.Found, want.Resolved)
			}
			if want.Report != nil {
				for list, got := range map[string]Outcomes{"FAIL_TO_PASS": rep.FailToPass, "PASS_TO_PASS": rep.PassToPass} {
					w := want.Report[list]
					if !slices.Equal(got.Success, nonNilS(w.Success)) || !slices.Equal(got.Failure, nonNilS(w.Failure)) {
						t.Errorf("%s (%s) %s: %v, official %v", name, v.Repo, list, got, w)
					}
				}
			}
		}
	}
}

func nonNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestReadInstancesFaults: a malformed dataset names its file, line and
// field.
func TestReadInstancesFaults(t *testing.T) {
	in := devRows(t)[0]
	good, _ := in.MarshalJSON()
	dir := t.TempDir()
	for _, c := range []struct{ name, data, want string }{
		{"jsonl", string(good) + "\n{\"instance_id\": 3}\n", ":2: "},
		{"f2p", string(good) + "\n" + strings.Replace(string(good), `"FAIL_TO_PASS":[`, `"FAIL_TO_PASS":[1,`, 1) + "\n", ":2: field FAIL_TO_PASS"},
		{"version", strings.Replace(string(good), `"version":"1.7"`, `"version":"0.0"`, 1), ":1: field repo/version"},
		{"base", strings.Replace(string(good), in.BaseCommit, "HEAD", 1), ":1: field base_commit"},
		{"array", "[\n" + string(good) + ",\n" + strings.Replace(string(good), `"patch":"diff`, `"patch":"no diff`, 1) + "\n]", ":3: instance [1]: field patch"},
		{"dupe", string(good) + "\n" + string(good), "appears twice"},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.data), 0o644)
		_, err := ReadInstances(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	p := filepath.Join(dir, "array-ok")
	os.WriteFile(p, []byte("[\n"+string(good)+"\n]"), 0o644)
	if ins, err := ReadInstances(p); err != nil || len(ins) != 1 || !slices.Equal(ins[0].FailToPass, in.FailToPass) {
		t.Errorf("a JSON array: %v, %v", ins, err)
	}
}

// TestSpecs: the facts the test scripts rest on.
func TestSpecs(t *testing.T) {
	s, err := SpecFor("sympy/sympy", "1.12")
	if err != nil || s.TestCmd != "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose" || s.ParserName != "parse_log_sympy" {
		t.Errorf("sympy 1.12: %+v %v", s, err)
	}
	if s, _ := SpecFor("astropy/astropy", "4.3"); s.TestCmd != "pytest -rA" {
		t.Errorf("astropy 4.3: %q", s.TestCmd)
	}
	if s, _ := SpecFor("django/django", "3.0"); !strings.HasPrefix(s.TestCmd, "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1") || len(s.Eval) != 4 {
		t.Errorf("django 3.0: %+v", s)
	}
	if _, err := SpecFor("sympy/sympy", "9.9"); err == nil {
		t.Error("an unknown version has a spec")
	}
	patch := "diff --git a/tests/admin/test_x.py b/tests/admin/test_x.py\n--- a/tests/admin/test_x.py\n+++ b/tests/admin/test_x.py\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/tests/admin/new.py b/tests/admin/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/admin/new.py\n@@ -0,0 +1 @@\n+b\n" +
		"diff --git a/tests/data.json b/tests/data.json\n--- a/tests/data.json\n+++ b/tests/data.json\n@@ -1 +1 @@\n-{}\n+[]\n"
	if got := TestDirectives("django/django", patch); !slices.Equal(got, []string{"admin.test_x", "admin.new"}) {
		t.Errorf("django directives %v", got)
	}
	if got := TestDirectives("sympy/sympy", patch); !slices.Equal(got, []string{"tests/admin/test_x.py", "tests/admin/new.py"}) {
		t.Errorf("directives %v", got)
	}
	if got := ModifiedFiles(patch); !slices.Equal(got, []string{"tests/admin/test_x.py", "tests/data.json"}) {
		t.Errorf("modified files %v", got)
	}
	if got, _ := ImageName(DefaultImage, Instance{InstanceID: "sympy__sympy-20154"}); got != "swebench/sweb.eval.x86_64.sympy_1776_sympy-20154:latest" {
		t.Errorf("image %q", got)
	}
}

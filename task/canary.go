package task

import (
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/result"
)

// Runners swetouch places canaries for.
const (
	RunnerUnittest = "unittest"
	RunnerPytest   = "pytest"
	RunnerGo       = "go"
	// RunnerNone declares a task whose runs carry no canaries (result.json
	// says so).
	RunnerNone = "none"
)

// Canaries is what the canaries showed (result.Canaries in result.json).
type Canaries = result.Canaries

// canary is one placement: a file's passing and failing test names.
type canary struct {
	file       string // where placed, as Canaries.Placed has it
	pass, fail string
	failKnown  bool // the failing canary's report is observed
	passTold   bool // so is the passing one's (unittest's result)
	pytest     bool // pytest's own reports are watched too
}

// runnerOf is the task's runner: as declared, or as its test.sh runs
// it; "" with why when it cannot tell.
func runnerOf(t *Task, testSh string) (string, string) {
	switch t.Runner {
	case RunnerNone:
		return "", "the task declares no runner for canaries ([verifier] runner = \"none\")"
	case "":
	default:
		return t.Runner, ""
	}
	var found []string
	for _, r := range []struct {
		name string
		re   *regexp.Regexp
	}{
		{RunnerGo, regexp.MustCompile(`\bgo\s+test\b`)},
		{RunnerPytest, regexp.MustCompile(`\bpytest\b`)},
		{RunnerUnittest, regexp.MustCompile(`-m\s+unittest\b`)},
	} {
		if r.re.MatchString(testSh) {
			found = append(found, r.name)
		}
	}
	switch len(found) {
	case 0:
		return "", "test.sh runs no runner swetouch places canaries for (go test, pytest, python -m unittest); declare [verifier] runner to say which"
	case 1:
		return found[0], ""
	}
	return "", "test.sh runs more than one runner (" + strings.Join(found, ", ") + "); declare [verifier] runner to say which"
}

// placeCanaries writes canaries where the runner collects them: Python,
// at the end of the test files test.sh names (all of tests/'s when it
// names none), in the tests' copy; Go, a _test.go of its own in each
// package of the workspace's copy that tests/ holds tests of. marks is
// the directory the canaries write to (writable in the sandbox).
func placeCanaries(runner, tests, ws, marks string, testSh string, rnd io.Reader) ([]canary, string, error) {
	switch runner {
	case RunnerUnittest, RunnerPytest:
		files := testFiles(tests, testSh, func(n string) bool {
			return strings.HasSuffix(n, ".py") && (strings.HasPrefix(n, "test_") || strings.HasSuffix(n, "_test.py"))
		})
		if len(files) == 0 {
			return nil, "tests/ holds no test_*.py or *_test.py to place canaries in", nil
		}
		var out []canary
		for _, f := range files {
			c := canary{file: "tests/" + f, pass: "test_" + name(rnd), fail: "test_" + name(rnd), failKnown: true, passTold: true, pytest: runner == RunnerPytest}
			f, err := os.OpenFile(filepath.Join(tests, f), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, "", err
			}
			src := pythonCanary(c, "Test"+name(rnd), marks, rnd)
			if runner == RunnerPytest {
				src += pytestWatch(marks, rnd)
			}
			_, err = io.WriteString(f, src)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, "", err
			}
			out = append(out, c)
		}
		return out, "", nil
	case RunnerGo:
		return placeGo(tests, ws, marks, rnd)
	}
	return nil, "no canaries for runner " + runner, nil
}

// testFiles are the files of tests/ that are test files by ok, narrowed
// to those test.sh names when it names any (a helper test.sh never runs
// would otherwise fail every honest run).
func testFiles(tests, testSh string, ok func(string) bool) []string {
	var all, named []string
	filepath.WalkDir(tests, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !ok(d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(tests, p)
		all = append(all, filepath.ToSlash(rel))
		stem := strings.TrimSuffix(d.Name(), filepath.Ext(d.Name()))
		if strings.Contains(testSh, stem) {
			named = append(named, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(named) > 0 {
		return named
	}
	return all
}

// name is a random identifier part: 12 hex digits.
func name(rnd io.Reader) string {
	b := make([]byte, 6)
	io.ReadFull(rnd, b)
	return hex.EncodeToString(b)
}

// number is a random small number, for the canaries' sums.
func number(rnd io.Reader) int {
	b := make([]byte, 2)
	io.ReadFull(rnd, b)
	return int(b[0])<<8 | int(b[1])
}

// pythonCanary is a unittest class (pytest collects it too) with the
// two canaries. Each leaves a mark when its body ran; the class watches
// how its result is told of each (add*), so a TestCase.run patched to
// report success is seen reporting the failing canary's.
func pythonCanary(c canary, class, marks string, rnd io.Reader) string {
	a, b := number(rnd), number(rnd)
	u, o := "_u"+name(rnd), "_O"+name(rnd)
	m := func(s string) string { return fmt.Sprintf("%q", filepath.Join(marks, s)) }
	return fmt.Sprintf(`

import unittest as %[1]s


class %[2]s:
    def __init__(self, result, path):
        self._r, self._p = result, path

    def __getattr__(self, attr):
        got = getattr(self._r, attr)
        if attr in ("addSuccess", "addFailure", "addError", "addExpectedFailure", "addUnexpectedSuccess", "addSkip"):
            def told(*a, **k):
                with open(self._p, "a") as f:
                    f.write(attr + "\n")
                return got(*a, **k)
            return told
        return got


class %[3]s(%[1]s.TestCase):
    def run(self, result=None):
        if result is not None:
            result = %[2]s(result, %[4]s + "." + self._testMethodName)
        return super().run(result)

    def %[5]s(self):
        self.assertEqual(%[7]d + %[8]d, %[9]d)
        open(%[10]s, "w").close()

    @%[1]s.expectedFailure
    def %[6]s(self):
        open(%[11]s, "w").close()
        self.assertEqual(%[7]d, %[12]d)
`, u, o, class, m("told"), c.pass, c.fail, a, b, a+b, m(c.pass+".ran"), m(c.fail+".ran"), a+1)
}

// pytestWatch is what pytest adds to a Python canary: a plugin,
// registered by an autouse fixture, that records every report pytest
// makes (after any conftest.py's hooks have changed it). The failing
// canary must be reported an expected failure (xfail), the passing one
// passed, and no test failed in a run that exited 0.
func pytestWatch(marks string, rnd io.Reader) string {
	n := name(rnd)
	return fmt.Sprintf(`

import pytest as _p%[1]s


class _W%[1]s:
    def pytest_runtest_logreport(self, report):
        xfail = "xfail" if hasattr(report, "wasxfail") else "-"
        with open(%[2]q, "a") as f:
            f.write("%%s %%s %%s %%s\n" %% (report.when, report.outcome, xfail, report.nodeid.replace(" ", "_")))


@_p%[1]s.fixture(autouse=True)
def _f%[1]s(request):
    pm = request.config.pluginmanager
    if not pm.has_plugin("swetouch-%[1]s"):
        pm.register(_W%[1]s(), "swetouch-%[1]s")
    yield
`, n, filepath.Join(marks, "reports"))
}

// checkReports reads what pytestWatch recorded: "" when the canaries
// were reported as they ran and no test failed, else how not.
func checkReports(cs []canary, marks string) string {
	b, err := os.ReadFile(filepath.Join(marks, "reports"))
	if err != nil {
		return "pytest reported no test to the canaries' watch"
	}
	var why []string
	seen := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) != 4 {
			continue
		}
		when, outcome, xfail, id := f[0], f[1], f[2], f[3]
		if outcome == "failed" {
			why = append(why, fmt.Sprintf("%s failed its %s, and the run exited 0", id, when))
		}
		if when == "call" {
			seen[id] = outcome + "/" + xfail
		}
	}
	for _, c := range cs {
		if r := seenEnding(seen, c.pass); r != "passed/-" {
			why = append(why, fmt.Sprintf("%s: pytest reported the passing canary %q", c.file, r))
		}
		if r := seenEnding(seen, c.fail); r != "skipped/xfail" {
			why = append(why, fmt.Sprintf("%s: pytest reported the failing canary %q, not an expected failure", c.file, r))
		}
	}
	return strings.Join(why, "; ")
}

func seenEnding(seen map[string]string, n string) string {
	for id, r := range seen {
		if strings.HasSuffix(id, "::"+n) {
			return r
		}
	}
	return "nothing"
}

// placeGo writes a _test.go holding the canaries (goCanary) into each
// directory of the workspace's copy whose package tests/'s Go tests
// belong to.
func placeGo(tests, ws, marks string, rnd io.Reader) ([]canary, string, error) {
	pkgs := map[string]bool{}
	for _, f := range testFiles(tests, "", func(n string) bool { return strings.HasSuffix(n, "_test.go") }) {
		if p := packageOf(filepath.Join(tests, f)); p != "" {
			pkgs[strings.TrimSuffix(p, "_test")] = true
		}
	}
	if len(pkgs) == 0 {
		return nil, "tests/ holds no _test.go to tell which package to place canaries in", nil
	}
	var out []canary
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != ws && (d.Name() == "vendor" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		pkg := dirPackage(p)
		if !pkgs[pkg] {
			return nil
		}
		rel, _ := filepath.Rel(ws, p)
		n := name(rnd)
		c := canary{file: filepath.ToSlash(filepath.Join("workspace", rel, "zz_"+n+"_test.go")),
			pass: "Test" + strings.ToUpper(n[:1]) + name(rnd), fail: "Test" + strings.ToUpper(n[1:2]) + name(rnd), failKnown: true}
		src := goCanary(pkg, c, marks, rnd)
		if err := os.WriteFile(filepath.Join(ws, strings.TrimPrefix(c.file, "workspace/")), []byte(src), 0o644); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if len(out) == 0 {
		return nil, "no package of the workspace is the one tests/'s Go tests belong to", nil
	}
	return out, "", nil
}

// goCanary is a _test.go of package pkg with the two canaries. Go has no
// expected failure, so the failing canary runs in a test binary of its
// own: the outer test runs the binary again for it alone, armed by a
// variable of this run's, and records how that run exited. A TestMain
// that exits 0 whatever its tests did passes it.
func goCanary(pkg string, c canary, marks string, rnd io.Reader) string {
	a, b := number(rnd), number(rnd)
	env, token := "SWETOUCH_"+strings.ToUpper(name(rnd)), name(rnd)
	return fmt.Sprintf(`package %[1]s

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func %[2]s(t *testing.T) {
	if %[4]d+%[5]d != %[6]d {
		t.Fatal("arithmetic")
	}
	os.WriteFile(%[7]q, nil, 0o644)
}

func %[3]s(t *testing.T) {
	if os.Getenv(%[9]q) == %[10]q {
		os.WriteFile(%[8]q, nil, 0o644)
		t.Fatal("the failing canary fails")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^%[3]s$", "-test.count=1")
	cmd.Env = append(os.Environ(), %[9]q+"="+%[10]q)
	told := "addSuccess"
	var ee *exec.ExitError
	if err := cmd.Run(); errors.As(err, &ee) && ee.ExitCode() == 1 {
		told = "addExpectedFailure"
	} else if err != nil {
		told = fmt.Sprintf("error:%%v", err)
	}
	os.WriteFile(%[11]q, []byte(told), 0o644)
}
`, pkg, c.pass, c.fail, a, b, a+b, filepath.Join(marks, c.pass+".ran"), filepath.Join(marks, c.fail+".ran"), env, token, filepath.Join(marks, "told."+c.fail))
}

// packageOf is a Go file's package name ("" when it has none).
func packageOf(path string) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}

// dirPackage is the package of a directory's first non-test Go file.
func dirPackage(dir string) string {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			if p := packageOf(filepath.Join(dir, e.Name())); p != "" {
				return p
			}
		}
	}
	return ""
}

// checkCanaries reads the marks the canaries left: "" when every one
// ran and was told as it should be, else how the run failed them.
func checkCanaries(cs []canary, marks string, tests map[string]string) string {
	var why []string
	ran := func(n string) bool { _, err := os.Stat(filepath.Join(marks, n+".ran")); return err == nil }
	told := func(n string) []string {
		b, _ := os.ReadFile(filepath.Join(marks, "told."+n))
		return strings.Fields(string(b))
	}
	if len(cs) > 0 && cs[0].pytest {
		if w := checkReports(cs, marks); w != "" {
			why = append(why, w)
		}
	}
	for _, c := range cs {
		if !ran(c.pass) {
			why = append(why, fmt.Sprintf("%s: the passing canary never ran", c.file))
		} else if c.passTold && !only(told(c.pass), "addSuccess") {
			why = append(why, fmt.Sprintf("%s: the passing canary was told as %v, not a success", c.file, told(c.pass)))
		}
		if r := reported(tests, c.pass); r != "" && r != "pass" {
			why = append(why, fmt.Sprintf("%s: the passing canary's result is %s", c.file, r))
		}
		if !c.failKnown {
			continue
		}
		switch t := told(c.fail); {
		case !ran(c.fail):
			why = append(why, fmt.Sprintf("%s: the failing canary never ran", c.file))
		case !only(t, "addExpectedFailure"):
			why = append(why, fmt.Sprintf("%s: the failing canary was told as %v, not a failure", c.file, t))
		}
	}
	return strings.Join(why, "; ")
}

// canaryNames are the canaries' test names, for a runner told which
// tests to run.
func canaryNames(cs []canary) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.pass)
		if c.fail != "" {
			out = append(out, c.fail)
		}
	}
	return out
}

// only says whether every report of a canary is want, and there is one
// (test.sh may run a test file more than once).
func only(told []string, want string) bool {
	return len(told) > 0 && !slices.ContainsFunc(told, func(s string) bool { return s != want })
}

// reported is the per-test result of the test whose id ends in n.
func reported(tests map[string]string, n string) string {
	for id, r := range tests {
		if strings.HasSuffix(id, n) {
			return r
		}
	}
	return ""
}

// withoutCanaries is tests without the canaries' own results.
func withoutCanaries(tests map[string]string, cs []canary) map[string]string {
	if tests == nil {
		return nil
	}
	out := map[string]string{}
	for id, r := range tests {
		if !slices.ContainsFunc(cs, func(c canary) bool {
			return strings.HasSuffix(id, c.pass) || (c.fail != "" && strings.HasSuffix(id, c.fail))
		}) {
			out[id] = r
		}
	}
	return out
}

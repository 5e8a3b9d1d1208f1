package swebench

import (
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/logs/*.golden.json from the official parsers")

// parserNames are the official parsers ours stand for, each once.
func parserNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, p := range parsers {
		if !seen[p.name] {
			seen[p.name] = true
			names = append(names, p.name)
		}
	}
	slices.Sort(names)
	return names
}

func parserNamed(name string) Parser {
	for _, p := range parsers {
		if p.name == name {
			return p.p
		}
	}
	return nil
}

// golden is a fixture's answers: the official parser's, by parser name.
type golden map[string]officialAnswer

func fixtureLogs(t *testing.T) []string {
	logs, err := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixture logs: %v", err)
	}
	return logs
}

// sameAsOfficial says how ours differs from the official answer ("" when
// it does not): the same map, or both failing.
func sameAsOfficial(ours map[string]string, err error, want officialAnswer) string {
	var bad *MalformedError
	switch {
	case want.Error != "" && errors.As(err, &bad):
		return ""
	case want.Error != "":
		return "official fails (" + want.Error + "), ours did not"
	case err != nil:
		return "ours fails (" + err.Error() + "), official did not"
	case !maps.Equal(ours, want.Map):
		return diffMaps(ours, want.Map)
	}
	return ""
}

func diffMaps(ours, want map[string]string) string {
	var d []string
	for k, v := range want {
		if ours[k] != v {
			d = append(d, "official "+k+"="+v+", ours "+ours[k])
		}
	}
	for k, v := range ours {
		if _, ok := want[k]; !ok {
			d = append(d, "ours only "+k+"="+v)
		}
	}
	slices.Sort(d)
	return strings.Join(d, "; ")
}

// TestFixtures holds every parser of ours, on every committed log, to the
// official parser's answer recorded beside it (-update records it anew
// from the venv's swebench).
func TestFixtures(t *testing.T) {
	var o *official
	if *update {
		o = startOfficial(t)
	}
	for _, path := range fixtureLogs(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		log := validText(b)
		gpath := strings.TrimSuffix(path, ".log") + ".golden.json"
		want := golden{}
		if o != nil {
			for _, name := range parserNames() {
				want[name] = o.parse(t, name, log)
			}
			g, _ := json.MarshalIndent(want, "", "  ")
			if err := os.WriteFile(gpath, append(g, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := readJSON(gpath, &want); err != nil {
			t.Fatalf("%s: %v (record it with -update)", gpath, err)
		}
		for _, name := range parserNames() {
			w, ok := want[name]
			if !ok {
				t.Errorf("%s: no official answer for %s (record it with -update)", gpath, name)
				continue
			}
			m, err := parserNamed(name)(log)
			if d := sameAsOfficial(m, err, w); d != "" {
				t.Errorf("%s, %s: %s", filepath.Base(path), name, d)
			}
		}
	}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// TestDifferential holds our parsers to the official ones, live, on the
// committed logs, the committed fuzz corpus, and real pytest logs made
// now by the venv's pytest in each form the repositories' commands give.
func TestDifferential(t *testing.T) {
	o := startOfficial(t)
	logs := map[string]string{}
	for _, path := range fixtureLogs(t) {
		b, _ := os.ReadFile(path)
		logs[filepath.Base(path)] = validText(b)
	}
	corpus, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParsers", "*"))
	for _, path := range corpus {
		if s, ok := corpusString(t, path); ok {
			logs["corpus/"+filepath.Base(path)] = s
		}
	}
	for name, log := range realPytestLogs(t) {
		logs[name] = log
	}
	n := 0
	for name, log := range logs {
		for _, p := range parserNames() {
			m, err := parserNamed(p)(log)
			if d := sameAsOfficial(m, err, o.parse(t, p, log)); d != "" {
				t.Errorf("%s, %s: %s", name, p, d)
			}
			n++
		}
	}
	t.Logf("%d logs, %d parser runs, each the same as the official's", len(logs), n)
}

// corpusString reads a "go test fuzz v1" file of one string.
func corpusString(t *testing.T, path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 2)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return "", false
	}
	arg := strings.TrimSpace(lines[1])
	q, ok := strings.CutPrefix(arg, "string(")
	if !ok {
		return "", false
	}
	s, err := unquoteGo(strings.TrimSuffix(q, ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return validText([]byte(s)), true
}

// realPytestLogs runs the venv's pytest on a small project of passing,
// failing, erroring, skipped, expected-to-fail and parametrized tests,
// with each repository's command line, colours on and off.
func realPytestLogs(t *testing.T) map[string]string {
	py, _ := venvPython()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "test_demo.py"), []byte(demoTests), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := map[string]string{}
	for name, args := range map[string][]string{
		"pytest -rA":                   {"-rA"},
		"pytest --no-header -rA":       {"--no-header", "-rA"},
		"pytest -rA --tb=long":         {"-rA", "--tb=long"},
		"pytest -rA --color=yes":       {"-rA", "--color=yes"},
		"pytest astropy's classic -vv": {"-rA", "-vv", "-o", "console_output_style=classic", "--tb=no"},
		"pytest -rA -v --color=yes":    {"-rA", "-v", "--color=yes"},
	} {
		cmd := exec.Command(py, append([]string{"-m", "pytest", "-p", "no:cacheprovider"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(string(out), "test_demo.py") {
			t.Fatalf("%s: pytest ran no test: %s", name, out)
		}
		logs[name] = string(out)
	}
	return logs
}

const demoTests = `import pytest

def test_pass():
    assert 1 + 1 == 2

def test_fail():
    assert 1 + 1 == 3, "arithmetic - broken"

@pytest.fixture
def broken():
    raise RuntimeError("fixture")

def test_error(broken):
    pass

@pytest.mark.skip(reason="not today")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.parametrize("path", ["/tmp/a/b.txt", "//net/share", "rel/x", "a*b", "MouseButton.LEFT"])
def test_param(path):
    assert "x" not in path

class TestGroup:
    def test_method(self):
        print("PASSED but printed")
`

package container

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The sympy rows of ../shared/data/swebench-dev (SWE-bench-format,
// verified here in a Debian bookworm image of python3, python-is-python3,
// python3-mpmath and pytest), with the sympy mirror read at test time.

// devRow is a SWE-bench row's fields the test reads.
type devRow struct {
	InstanceID string `json:"instance_id"`
	BaseCommit string `json:"base_commit"`
	Patch      string `json:"patch"`
	TestPatch  string `json:"test_patch"`
	Problem    string `json:"problem_statement"`
	F2P        string `json:"FAIL_TO_PASS"`
	P2P        string `json:"PASS_TO_PASS"`
}

// devInstance is the row id of the shared dev split, or the test skips
// saying why (no shared data, no mirror).
func devInstance(t *testing.T, id string) (devRow, string) {
	t.Helper()
	shared := os.Getenv("SWETOUCH_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "shared")
	}
	f, err := os.Open(filepath.Join(shared, "data", "swebench-dev", "instances.jsonl"))
	if err != nil {
		t.Skipf("the SWE-bench dev rows are not here (set SWETOUCH_SHARED): %v", err)
	}
	defer f.Close()
	mirrors := os.Getenv("SWETOUCH_MIRRORS")
	if mirrors == "" {
		mirrors = "/work/.mirror"
	}
	mirror := filepath.Join(mirrors, "sympy+sympy", "repo")
	if _, err := os.Stat(mirror); err != nil {
		t.Skipf("no sympy mirror at %s (fetch github:sympy/sympy, or set SWETOUCH_MIRRORS)", mirror)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r devRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.InstanceID == id {
			return r, mirror
		}
	}
	t.Fatalf("%s is not in the dev rows", id)
	return devRow{}, ""
}

// sympyTask writes the row as a task in its image: test.sh applies the
// test patch and runs SWE-bench's sympy command on the files it touches.
func sympyTask(t *testing.T, r devRow, image string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), r.InstanceID)
	files := regexp.MustCompile(`(?m)^diff --git a/(\S+)`).FindAllStringSubmatch(r.TestPatch, -1)
	var paths []string
	for _, m := range files {
		paths = append(paths, m[1])
	}
	write := map[string]string{
		"instruction.md": r.Problem,
		"task.toml":      "[task]\nname = \"" + r.InstanceID + "\"\n\n[environment]\ndocker_image = \"" + image + "\"\nworkdir = \"/testbed\"\n\n[verifier]\ntimeout_sec = 900\nrunner = \"none\"\n",
		"tests/test.sh": "#!/bin/bash\ngit apply -v \"$TESTS_DIR/test.patch\" || exit 1\n" +
			"PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose " + strings.Join(paths, " ") + "\n",
		"tests/test.patch": r.TestPatch,
	}
	for p, s := range write {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sympyOutcomes reads bin/test's verbose log as SWE-bench's sympy parser
// does: a line starting test_ and ending " ok" passed, " F" or " E"
// failed.
func sympyOutcomes(log string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "test_") {
			continue
		}
		name, verdict, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		switch verdict {
		case "ok":
			out[name] = true
		case "F", "E":
			out[name] = false
		}
	}
	return out
}

// TestSympyDevInContainer: sympy__sympy-21847's image built here from the
// mirror, then in its container the gold patch resolves (F2P and P2P
// all pass) and a no-op does not (F2P fails, P2P passes), each matching
// the row's FAIL_TO_PASS and PASS_TO_PASS.
func TestSympyDevInContainer(t *testing.T) {
	rt := needRuntime(t)
	r, mirror := devInstance(t, "sympy__sympy-21847")
	var f2p, p2p []string
	if json.Unmarshal([]byte(r.F2P), &f2p) != nil || json.Unmarshal([]byte(r.P2P), &p2p) != nil {
		t.Fatal("FAIL_TO_PASS/PASS_TO_PASS are not JSON lists")
	}
	tag := "localhost/swetouch-test/sympy__sympy-21847:base"
	var log limitedBuffer
	if err := Build(t.Context(), rt, Spec{Tag: tag, Repo: mirror, Commit: r.BaseCommit, Packages: []string{"python-is-python3", "python3-mpmath"}}, WithLog(&log)); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	taskDir := sympyTask(t, r, tag)
	gold := filepath.Join(t.TempDir(), "gold.patch")
	if err := os.WriteFile(gold, []byte(r.Patch), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		agent    []string
		resolved bool
	}{
		{"gold", []string{"/bin/bash", agentScript(t, `bash -c "git apply '$1'"`+"\n"), gold}, true},
		{"noop", []string{"/bin/true"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, res := trial(t, taskDir, tt.agent...)
			if res.Resolved == nil || *res.Resolved != tt.resolved {
				t.Fatalf("resolved %v (%s), want %v", res.Resolved, res.Reason, tt.resolved)
			}
			got := sympyOutcomes(verifyOutput(t, out))
			for _, id := range f2p {
				if passed, ran := got[id]; !ran || passed != tt.resolved {
					t.Errorf("FAIL_TO_PASS %s: ran %v, passed %v; want passed %v", id, ran, passed, tt.resolved)
				}
			}
			for _, id := range p2p {
				if !got[id] {
					t.Errorf("PASS_TO_PASS %s did not pass", id)
				}
			}
		})
	}
}

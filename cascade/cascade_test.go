package cascade

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/devdata"
	"github.com/swetouch/swetouch/patch"
)

// repo makes a git repository in the test: commit writes files and
// commits them with a message, returning the commit.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	r := &repo{t, t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) commit(msg string, files map[string]string) string {
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(r.dir, name)), 0o755)
		os.WriteFile(filepath.Join(r.dir, name), []byte(body), 0o644)
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

const (
	calc0 = "def total(items):\n    return sum(items)\n\n\ndef shipping(amount):\n    return 5\n"
	calc1 = "def total(items):\n    return sum(price * qty for price, qty in items)\n\n\ndef shipping(amount):\n    return 5\n"
	calc2 = "def total(items):\n    return sum(price * qty for price, qty in items if qty > 0)\n\n\ndef shipping(amount):\n    return 5\n"
	test0 = "from calc import total\n\n\ndef test_empty():\n    assert total([]) == 0\n"
	test1 = test0 + "\n\ndef test_quantity():\n    assert total([(10, 3)]) == 30\n"
	test2 = test1 + "\n\ndef test_negative_quantity():\n    assert total([(10, -1)]) == 0\n"
)

// TestMine (U1): in a history of a fix, an unrelated change, a fix of
// something else, and a second fix that names the first's issue and
// changes the line it wrote, the cascade proposed is the first fix and
// the second: its base the first's parent, each phase's tests the ones
// its fix added, and both fixes diffs that apply in turn on the base and
// give the second fix's code.
func TestMine(t *testing.T) {
	r := newRepo(t)
	base := r.commit("start", map[string]string{"calc.py": calc0, "tests/test_calc.py": test0})
	a := r.commit("Fix #12: total ignores the quantity", map[string]string{"calc.py": calc1, "tests/test_calc.py": test1})
	r.commit("docs: a README", map[string]string{"README": "calc\n"})
	r.commit("Fix #13: shipping is free from 50", map[string]string{"calc.py": strings.Replace(calc1, "return 5", "return 0 if amount >= 50 else 5", 1),
		"tests/test_ship.py": "from calc import shipping\n\n\ndef test_free():\n    assert shipping(50) == 0\n"})
	b := r.commit("Negative quantities count as none (fixes #14, after #12)", map[string]string{
		"calc.py": strings.Replace(calc2, "return 5", "return 0 if amount >= 50 else 5", 1), "tests/test_calc.py": test2})
	ps, err := Mine(r.dir, Options{MinTouched: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		for _, p := range ps {
			t.Logf("%s → %s %+v", p.First.Subject, p.Second.Subject, p.Links)
		}
		t.Fatalf("%d cascades, want 1", len(ps))
	}
	p := ps[0]
	if p.Base != base || p.First.Commit != a || p.Second.Commit != b {
		t.Errorf("base %.7s first %.7s second %.7s; want %.7s %.7s %.7s", p.Base, p.First.Commit, p.Second.Commit, base, a, b)
	}
	kinds := ""
	for _, l := range p.Links {
		kinds += l.Kind + ":" + l.Detail + " "
	}
	if !strings.Contains(kinds, "names_first:#12") || !strings.Contains(kinds, "touches_first:1 ") {
		t.Errorf("links %s", kinds)
	}
	if got := p.Phases; len(got) != 2 || strings.Join(got[0].Acceptance, ",") != "test_quantity" || strings.Join(got[1].Acceptance, ",") != "test_negative_quantity" || got[1].After != "p1" {
		t.Errorf("phases %+v", got)
	}
	// the fixes apply in turn on the base's code
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "calc.py"), []byte(calc0), 0o644)
	for i, d := range []string{p.Fix1, p.Fix2} {
		fds, err := patch.Parse(d)
		if err != nil {
			t.Fatalf("fix %d: %v\n%s", i+1, err, d)
		}
		if rep, err := patch.Apply(patch.Dir(ws), fds); err != nil || !rep.Applied {
			t.Fatalf("fix %d does not apply: %v %+v", i+1, err, rep)
		}
		if i == 0 {
			if b, _ := os.ReadFile(filepath.Join(ws, "calc.py")); string(b) != calc1 {
				t.Errorf("after the first fix:\n%s", b)
			}
		}
	}
	want := strings.Replace(calc2, "return 5", "return 0 if amount >= 50 else 5", 1)
	if b, _ := os.ReadFile(filepath.Join(ws, "calc.py")); string(b) != want {
		t.Errorf("after both fixes:\n%s", b)
	}
	if !strings.Contains(p.Tests2, "+def test_negative_quantity") || strings.Contains(p.Fix1, "test_") {
		t.Errorf("tests' diffs mixed with the fixes:\n%s\n%s", p.Fix1, p.Tests2)
	}
	dirs, err := Write(t.TempDir(), ps)
	if err != nil || len(dirs) != 1 {
		t.Fatal(dirs, err)
	}
	for _, f := range []string{"cascade.json", "p1.diff", "p2.diff", "tests-p1.diff", "tests-p2.diff"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Error(err)
		}
	}
}

// TestMineSympy: on the sympy mirror's recent mainline (skipped when
// absent), every cascade proposed has a base, two fixes with code
// diffs, and tests for each phase.
func TestMineSympy(t *testing.T) {
	dir := devdata.Mirror(t, "sympy/sympy")
	ps, err := Mine(dir, Options{Max: 150, Window: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cascades in sympy's last 150 mainline changes", len(ps))
	for _, p := range ps {
		t.Logf("%.10s %q → %.10s %q %+v", p.First.Commit, p.First.Subject, p.Second.Commit, p.Second.Subject, p.Links)
		if p.Base == "" || p.Fix1 == "" || p.Fix2 == "" || len(p.Phases[0].Acceptance) == 0 || len(p.Phases[1].Acceptance) == 0 {
			t.Errorf("an incomplete proposal: %+v", p)
		}
	}
}

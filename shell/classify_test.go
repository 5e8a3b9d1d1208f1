package shell

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// f renders findings compactly: "read a.py:10-20", "edit b.py", "test".
func render(r *Result) string {
	var parts []string
	for _, k := range r.Kinds() {
		scopes := r.Scopes(k)
		if len(scopes) == 0 {
			parts = append(parts, string(k))
			continue
		}
		for _, s := range scopes {
			parts = append(parts, fmt.Sprintf("%s %s", k, s))
		}
	}
	return strings.Join(parts, "; ")
}

// classifyCases are TestClassify's rows (and FuzzClassify's seeds).
var classifyCases = []struct {
	cmd, want string
}{
	// sed -n ranges
	{`sed -n '10,20p' src/a.py`, "read src/a.py:10-20"},
	{`sed -n 10,20p src/a.py`, "read src/a.py:10-20"},
	{`sed -n "10,20p" /testbed/src/a.py`, "read src/a.py:10-20"},
	{`sed -n '10p' a.py`, "read a.py:10-10"},
	{`sed -n '10 p' a.py`, "read a.py:10-10"},
	{`sed -n '10,+5p' a.py`, "read a.py:10-15"},
	{`sed -n -e '10,20p' a.py`, "read a.py:10-20"},
	{`sed -n -e 1,5p -e 9,12p a.py`, "read a.py:1-5; read a.py:9-12"},
	{`sed -n '1,5p;9,12p' a.py`, "read a.py:1-5; read a.py:9-12"},
	{`sed -n '20,10p' a.py`, "read a.py:20-20"},
	{`sed -n '/def foo/,/return/p' a.py`, "read a.py"},
	{`sed -n '5,$p' a.py`, "read a.py"},
	{`sed '10q' a.py`, "read a.py:1-10"},
	{`sed -n '1,5p' .github/ci.yml`, "read .github/ci.yml:1-5"},
	// head / tail
	{`head -n 50 a.py`, "read a.py:1-50"},
	{`head -50 a.py`, "read a.py:1-50"},
	{`head a.py`, "read a.py:1-10"},
	{`head -c 100 a.py`, "read a.py"},
	{`tail -n +100 a.py`, "read a.py"},
	{`tail -n 20 a.py`, "read a.py"},
	{`tail -n +100 a.py | head -n 20`, "read a.py:100-119"},
	// numbered listings piped
	{`nl -ba src/a.py | sed -n '10,20p'`, "read src/a.py:10-20"},
	{`cat -n /testbed/src/a.py | sed -n '10,20p'`, "read src/a.py:10-20"},
	{`cat -n a.py | head -n 30`, "read a.py:1-30"},
	{`nl -ba a.py | tail -n +40 | head -5`, "read a.py:40-44"},
	{`nl -ba a.py | sed -n '105,110p;280,295p'`, "read a.py:105-110; read a.py:280-295"},
	{`sed -n '100,200p' a.py | head -n 10`, "read a.py:100-109"},
	{`sed -n '100,200p' a.py | tail -n 10`, "read a.py:191-200"},
	// awk
	{`awk 'NR>=5 && NR<=9' a.py`, "read a.py:5-9"},
	{`awk 'NR==7' a.py`, "read a.py:7-7"},
	{`awk 'NR>=5 && NR<=9 {print NR": "$0}' a.py`, "read a.py:5-9"},
	{`cat a.py | awk 'NR>10 && NR<20'`, "read a.py:11-19"},
	{`awk '/foo/' a.py`, "read a.py"},
	{`awk -i inplace '{print}' a.py`, "edit a.py"},
	// editor tool
	{`str_replace_editor view /testbed/src/a.py --view_range 10 20`, "read src/a.py:10-20"},
	{`str_replace_editor view /testbed/src/a.py --view_range 10 -1`, "read src/a.py"},
	{`str_replace_editor str_replace /testbed/a.py --old_str x --new_str y`, "edit a.py"},
	{`str_replace_editor create b.py --file_text 'x=1'`, "edit b.py"},
	// grep and friends
	{`grep -n foo a.py`, "read a.py"},
	{`rg value source.py`, "read source.py"},
	{`grep -rn "self.foo" src/`, "run"},
	{`grep -l foo a.py b.py`, "read a.py; read b.py"},
	{`less a.py`, "read a.py"},
	{`wc -l a.py`, "read a.py"},
	{`diff a.py b.py`, "read a.py; read b.py"},
	{`cat package.json`, "read package.json"},
	{`cat a.py b.py`, "read a.py; read b.py"},
	// eval, and Claude Code's wrapper around every command
	{`eval 'sed -n 1,5p a.py'`, "read a.py:1-5"},
	{"source /root/.claude/shell-snapshots/snapshot-bash-1-x.sh 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'cd src && nl -ba a.py | sed -n 10,20p' < /dev/null && pwd -P >| /tmp/claude-ab12-cwd", "read src/a.py:10-20"},
	// pwd into a file is an edit when the file is the agent's work
	{"pwd > where.txt && pwd -P >| /tmp/claude-ab12-cwd", "edit where.txt"},
	// python
	{`python -c "print(open('a.py').read())"`, "read a.py"},
	{`python -c "lines=open('a.py').readlines(); print(''.join(lines[99:120]))"`, "read a.py:100-120"},
	{"python - <<'EOF'\nfrom pathlib import Path\np = Path('src/a.py')\ns = p.read_text()\np.write_text(s.replace('a', 'b'))\nEOF", "read src/a.py; edit src/a.py"},
	{"python3 <<'EOF'\nwith open('a.py') as f:\n    s = f.read()\nwith open('a.py', 'w') as f:\n    f.write(s)\nEOF", "read a.py; edit a.py"},
	{`python -c "import os; os.remove('x.py')"`, "edit x.py"},
	{"python - <<'EOF'\nt = Table()\nt.write('out/t.ecsv', format='ascii.ecsv')\ndf.to_csv(path)\nf.write('text')\nEOF", "edit out/t.ecsv"},
	{`python reproduce.py`, "run"},
	// redirections, heredocs, tee
	{`echo hi >> src/a.py`, "edit src/a.py"},
	{`echo x > Makefile`, "edit Makefile"},
	{"cat > f.py <<EOF\nx > y.z\nEOF", "edit f.py"},
	{"cat <<'EOF' > f.py\nx = 1 -> 2\nEOF", "edit f.py"},
	{`printf x | tee src/a.py`, "edit src/a.py"},
	{`ls > /dev/null 2>&1`, "run"},
	{`python a.py 2> err.log`, "edit err.log"},
	// sed -i spellings
	{`sed -i 's/a/b/' src/a.py`, "edit src/a.py"},
	{`sed -i.bak -e 's/a/b/' src/a.py src/b.py`, "edit src/a.py; edit src/b.py"},
	{`sed -e 's/a/b/' -i f.py`, "edit f.py"},
	{`sed --in-place 's/a/b/' f.py`, "edit f.py"},
	{`sed -Ei 's/a+/b/' f.py`, "edit f.py"},
	{`sed -ni 's/a/b/p' f.py`, "edit f.py"},
	{`sed -i '' 's/a/b/' f.py`, "edit f.py"},
	{`sed -i '10,12d' f.py`, "edit f.py:10-12"},
	{`sed -i '15s/a/b/' f.py`, "edit f.py:15-15"},
	{`perl -pi -e 's/a/b/' f.py`, "edit f.py"},
	{`perl -i -pe 's/a/b/' f.py g.py`, "edit f.py; edit g.py"},
	// git
	{`git -C /testbed checkout -- src/a.py`, "edit src/a.py"},
	{`git checkout main`, "run"},
	{`git checkout HEAD~1 src/a.py`, "edit src/a.py"},
	{`git restore src/a.py`, "edit src/a.py"},
	{`git restore --staged src/a.py`, "run"},
	{`git stash`, "edit"},
	{`git reset --hard`, "edit"},
	{`git apply fix.patch`, "edit"},
	{"git apply <<'EOF'\ndiff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a\n+b\nEOF", "edit src/a.py"},
	{"patch -p1 <<'EOF'\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a\n+b\nEOF", "edit src/a.py"},
	{`patch src/a.py < fix.diff`, "read fix.diff; edit src/a.py"},
	{"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** Add File: src/new.py\n+x\n*** End Patch\nEOF", "edit src/a.py; edit src/new.py"},
	{`git add -A && git diff --cached`, "run"},
	// rm/mv/cp/touch
	{`rm a.py b.py`, "edit a.py; edit b.py"},
	{`mv a.py b.py`, "edit a.py; edit b.py"},
	{`cp src/a.py src/b.py`, "read src/a.py; edit src/b.py"},
	{`touch new.py`, "edit new.py"},
	// nesting, cwd
	{`bash -c "sed -n '1,5p' a.py"`, "read a.py:1-5"},
	{`bash -lc 'cd src && sed -i s/a/b/ a.py'`, "edit src/a.py"},
	{`sh -c 'cat a.py'`, "read a.py"},
	{`(cd /testbed && cat f.py)`, "read f.py"},
	{`cd src && sed -i 's/a/b/' a.py`, "edit src/a.py"},
	{`cd /testbed/src; cat ../b.py`, "read b.py"},
	{`(cd src && cat a.py); cat a.py`, "read a.py; read src/a.py"},
	{`find . -name "*.py" | xargs sed -i 's/a/b/'`, "edit"},
	{`find src -name "*.py" -exec sed -i 's/a/b/' {} \;`, "edit"},
	{`for f in a.py b.py; do sed -i 's/x/y/' $f; done`, "edit a.py; edit b.py"},
	{`timeout 60 python -m pytest tests/test_a.py -x`, "test tests/test_a.py"},
	{`env PYTHONPATH=. pytest tests/test_a.py::test_x`, "test tests/test_a.py"},
	// tests
	{`pytest`, "test"},
	{`python -m pytest -q tests/`, "test tests"},
	{`python -m unittest tests.test_a`, "test"},
	{`tox -e py39`, "test"},
	{`./runtests.py`, "test"},
	{`bin/test sympy/core/tests/test_basic.py`, "test sympy/core/tests/test_basic.py"},
	{`go test ./...`, "test"},
	{`npm test`, "test"},
	{`make test`, "test"},
	{`cd /testbed && python -m pytest a/tests/test_b.py 2>&1 | tail -20`, "test a/tests/test_b.py"},
	// not paths
	{`ls -la`, "run"},
	{`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached`, "run"},
	// unparsable
	{`cat a.py | sed -n '1,5p`, "read a.py:1-5"},
}

func TestClassify(t *testing.T) {
	for _, tt := range classifyCases {
		t.Run(tt.cmd, func(t *testing.T) {
			r := Classify(tt.cmd)
			if got := render(r); got != tt.want {
				t.Errorf("Classify(%q)\n got: %s\nwant: %s", tt.cmd, got, tt.want)
			}
		})
	}
}

// classifyOutputCases are TestClassifyOutput's rows (and FuzzClassify's
// seeds).
var classifyOutputCases = []struct {
	cmd, out, want string
}{
	{"nl -ba a.py | sed -n '10,20p'", "    10\tx\n    11\ty\n", "read a.py:10-11"},
	{"nl -ba a.py | grep -C 1 foo", "     4\tbar\n     5\tfoo\n     6\tbaz\n--\n    40\tx\n    41\tfoo\n    42\ty\n", "read a.py:4-6; read a.py:40-42"},
	{"cat a.py", "1 leading digits\n200 more\n", "read a.py"},
	{"grep -n foo a.py", "12:foo\n40:  foo()\n", "read a.py:12-12; read a.py:40-40"},
	{"grep -n -C1 foo a.py", "11-x\n12:foo\n13-y\n", "read a.py:11-13"},
	{"grep -rn foo src", "src/a.py:12:foo\nsrc/a.py-13-bar\nsrc/b.py:3:foo\n", "read src/a.py:12-13; read src/b.py:3-3"},
	{"grep -rn version .", "package.json:3:  \"version\": 1\n", "read package.json:3-3"},
	{"pytest", "src/a.py:42: in f\nE   assert 1 == 2\n", "read src/a.py:42-42; test"},
	{"python r.py", "Traceback (most recent call last):\n  File \"/testbed/src/a.py\", line 7, in <module>\n", "read src/a.py:7-7"},
	{"sed -n '10,20p' a.py", "a\nb\nc\n", "read a.py:10-12"},
	{"tail -n +100 a.py", "a\nb\n", "read a.py:100-101"},
	{"nl -ba a.py | sed -n '1,3p'", "     1\tx\n     2\t\n     3\ty\n", "read a.py:1-3"},
	{"nl a.py", "     1\tx\n       \n     2\ty\n", "read a.py:1-2"},
	{"cd src && grep -n foo a.py b.py", "a.py:3:foo\n", "read src/a.py:3-3; read src/b.py"},
	// a recursive grep without numbers shows the files it names (their
	// lines need the content: TestGrepNamesLines)
	{"grep -r foo src", "src/a.py:    foo()\nsrc/b.py:foo = 1\n", "read src/a.py; read src/b.py"},
	{"grep -rl foo src", "src/a.py\n", "run"},
	// a file the command could not open was not read
	{"cat missing.py a.py", "cat: missing.py: No such file or directory\nx\n", "read a.py"},
	{"cat missing.py", "cat: missing.py: No such file or directory\n", "run"},
	{"python3 nope.py", "python3: can't open file '/testbed/nope.py': [Errno 2] No such file or directory\n", "run"},
}

func TestClassifyOutput(t *testing.T) {
	for _, tt := range classifyOutputCases {
		t.Run(tt.cmd, func(t *testing.T) {
			r := NewSession().ClassifyOutput(tt.cmd, Observation{Text: tt.out})
			if got := render(r); got != tt.want {
				t.Errorf("ClassifyOutput(%q)\n got: %s\nwant: %s", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestSessionMemory(t *testing.T) {
	s := NewSession()
	steps := []struct{ cmd, want string }{
		{"cat <<'EOF' > fix.py\nimport re\ns = open('src/a.py').read()\nopen('src/a.py', 'w').write(s)\nEOF", "edit fix.py"},
		{"python fix.py", "read src/a.py; edit src/a.py"},
		{"cat > x.diff <<'EOF'\n--- a/src/b.py\n+++ b/src/b.py\n@@ -1 +1 @@\n-a\n+b\nEOF", "edit x.diff"},
		{"git apply x.diff", "edit src/b.py"},
		{"git stash", "edit fix.py; edit src/a.py; edit src/b.py; edit x.diff"},
		{"git stash pop", "edit fix.py; edit src/a.py; edit src/b.py; edit x.diff"},
		{"git checkout src", "edit src/a.py; edit src/b.py"},
	}
	for _, st := range steps {
		if got := render(s.Classify(st.cmd)); got != st.want {
			t.Errorf("%q\n got: %s\nwant: %s", st.cmd, got, st.want)
		}
	}
}

func TestFallbackSaysSo(t *testing.T) {
	r := Classify(`sed -n '1,5p a.py`)
	if !r.Fallback || r.Err == "" {
		t.Fatalf("unbalanced quote: want fallback with a reason, got %+v", r)
	}
	evs := r.Events("x")
	if !strings.Contains(evs[0].Note, "token rules") {
		t.Errorf("event note %q does not say token rules were used", evs[0].Note)
	}
}

// TestRootStripping: paths under the root are repo-relative; a path
// outside it, written absolute or climbing out with "..", is absolute.
func TestRootStripping(t *testing.T) {
	r := Classify(`cat /work/repo/src/a.py /other/x.py ../up.py`, WithRoot("/work/repo"))
	got := render(r)
	want := "read /other/x.py; read /work/up.py; read src/a.py"
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
	_ = event.Read
}

func TestGrepNumbersThroughSelection(t *testing.T) {
	r := NewSession().ClassifyOutput(`sed -n '692,850p' s.py | grep -n "def _contains"`, Observation{Text: "89:    def _contains(self, e):\n"})
	if got, want := render(r), "read s.py:780-780"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestPythonRangeIndex(t *testing.T) {
	r := Classify("python3 -c \"lines=open('a.py').readlines()\nfor i in range(9, 12): print(lines[i])\"")
	if got, want := render(r), "read a.py:10-12"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

// memFiles is a FileSource over a map.
type memFiles map[string]string

func (m memFiles) ReadFile(p string) ([]byte, error) {
	if c, ok := m[p]; ok {
		return []byte(c), nil
	}
	return nil, os.ErrNotExist
}

// TestGrepNamesLines: with the content known, a recursive grep without
// numbers reads the lines that hold each shown text; a text the file no
// longer holds reads the file, never an invented line.
func TestGrepNamesLines(t *testing.T) {
	files := memFiles{"src/a.py": "def f():\n    return 1\n\ndef g():\n    return f()\n", "src/b.py": "x = f()\ny = 2\n"}
	r := NewSession(WithFiles(files)).ClassifyOutput("grep -r 'f()' src", Observation{Text: "src/a.py:    return f()\nsrc/b.py:x = f()\nsrc/b.py:gone = f()\n"})
	if got, want := render(r), "read src/a.py:5-5; read src/b.py:1-1"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	r = NewSession(WithFiles(files)).ClassifyOutput("grep -r 'f()' src", Observation{Text: "src/b.py:z = f()\n"})
	if got, want := render(r), "read src/b.py"; got != want {
		t.Errorf("a text the file does not hold: got %s, want %s", got, want)
	}
}

// sedSubstituteCases are TestSedSubstituteLines's rows (and FuzzClassify's
// seeds).
var sedSubstituteCases = []struct{ cmd, want string }{
	{`sed -i 's/return x + 1/return x + 2/' a.py`, "edit a.py:2-2"},
	{`sed -i 's/print(f(\([0-9]\)))/print(g(\1))/g' a.py`, "edit a.py:4-5"},
	{`sed -i -E 's/f\((2|3)\)/g(\1)/' a.py`, "edit a.py:4-5"},
	{`sed -i 's|a\|b|x|' p/b.txt`, "edit p/b.txt:1-1"},
	{`sed -i 's/\<def\>/async def/' a.py`, "edit a.py:1-1"},
	{`sed -i 's/nothing here/x/' a.py`, "edit a.py"},
	{`sed -i 's/x/y/; 3d' a.py`, "edit a.py"},
}

// TestSedSubstituteLines: `sed -i 's/…/…/'` with no address edits the
// lines its pattern matches, read from the known content (a basic
// expression's operators are the escaped ones; -E takes them bare; an
// escaped delimiter is the delimiter); unknown content, or a pattern
// that matches nothing, leaves the whole file.
func TestSedSubstituteLines(t *testing.T) {
	files := memFiles{"a.py": "def f(x):\n    return x + 1\n\nprint(f(2))\nprint(f(3))\n", "p/b.txt": "a|b\nc\n"}
	for _, c := range sedSubstituteCases {
		if got := render(NewSession(WithFiles(files)).Classify(c.cmd)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.cmd, got, c.want)
		}
	}
	if got := render(NewSession().ClassifyOutput(`sed -i 's/return x + 1/return x + 2/' a.py`, Observation{})); got != "edit a.py" {
		t.Errorf("without the content: got %s, want the whole file", got)
	}
}

// TestBaseGoesStale: with the base checkout as the file source, a file a
// command changed in a way the session cannot replay is no longer
// resolved from the base (its lines moved): a later read needing its
// content is whole-file. Content a command wrote whole, a file restored
// to the base, and a live view of the workspace stay exact; a command's
// own reads, before its write, see the file as it was.
func TestBaseGoesStale(t *testing.T) {
	base := memFiles{"a.py": "1\n2\n3\n4\n5\n6\n"}
	tail := "tail -n 2 a.py"
	for _, c := range []struct {
		name   string
		before []string
		opt    Option
		want   string
	}{
		{"untouched", nil, WithBase(base), "read a.py:5-6"},
		{"edited by sed", []string{"sed -i '1i x' a.py"}, WithBase(base), "read a.py"},
		{"edited by a script", []string{"python -c \"open('a.py','a').write('7\\n')\""}, WithBase(base), "read a.py"},
		{"written whole", []string{"sed -i '1i x' a.py", "printf '1\\n2\\n3\\n' > a.py"}, WithBase(base), "read a.py:2-3"},
		{"appended to known content", []string{"echo 7 >> a.py"}, WithBase(base), "read a.py:6-7"},
		{"restored", []string{"sed -i '1i x' a.py", "git checkout -- a.py"}, WithBase(base), "read a.py:5-6"},
		{"stashed", []string{"sed -i '1i x' a.py", "git stash"}, WithBase(base), "read a.py:5-6"},
		{"stash popped", []string{"sed -i '1i x' a.py", "git stash", "git stash pop"}, WithBase(base), "read a.py"},
		{"restored from another revision", []string{"sed -i '1i x' a.py", "git checkout v1 a.py"}, WithBase(base), "read a.py"},
		{"live workspace", []string{"sed -i '1i x' a.py"}, WithFiles(base), "read a.py:5-6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewSession(c.opt)
			for _, b := range c.before {
				s.Classify(b)
			}
			if got := render(s.Classify(tail)); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
	// the command's own read precedes its write
	s := NewSession(WithBase(base))
	r := s.Classify("tail -n 2 a.py; sed -i '1i x' a.py")
	if got := render(r); !strings.Contains(got, "read a.py:5-6") {
		t.Errorf("own read: got %s", got)
	}
}

// outputPathCases are TestOutputPathsThatAreNotReads's rows (and
// FuzzClassify's seeds).
var outputPathCases = []struct{ cwd, cmd, out, want string }{
	{"", "python -m unittest astropy.io.tests", "...astropy/io/x.py:2: UserWarning: old\n..\nOK\n", "read astropy/io/x.py:2-2; test"},
	{"", "python -m unittest astropy.io.tests", "..F.Eastropy/io/x.py:3: UserWarning: old\n", "read astropy/io/x.py:3-3; test"},
	{"", "python -m unittest astropy.io.tests", "..../testbed/astropy/io/x.py:1: UserWarning: old\n", "read astropy/io/x.py:1-1; test"},
	{"astropy", "python -m pytest io", "../opt/conda/lib/python3.9/site-packages/_pytest/runner.py:341: in from_call\n", "read /opt/conda/lib/python3.9/site-packages/_pytest/runner.py:341-341; test"},
	{"", "python -m pytest astropy", "../opt/conda/lib/python3.9/site-packages/_pytest/runner.py:341: in from_call\n", "read /opt/conda/lib/python3.9/site-packages/_pytest/runner.py:341-341; test"},
	{"astropy/io", "grep -n b ../io/x.py", "2:b\n", "read astropy/io/x.py:2-2"},
	{"", "sed -n '500,520p' astropy/io/x.py", "", "run"},
	{"", "cat astropy/io/x.py", "", "read astropy/io/x.py"},
}

// TestOutputPathsThatAreNotReads: paths a command printed that are not
// workspace files are never reported as reads of one: unittest's progress
// dots glued to a warning's path, pytest's "../opt/…" locations of an
// installed package (relative to the test root, not the shell's
// directory), and a selection of lines past the end that printed nothing.
func TestOutputPathsThatAreNotReads(t *testing.T) {
	files := memFiles{"astropy/io/x.py": "a\nb\nc\n"}
	for _, c := range outputPathCases {
		s := NewSession(WithFiles(files), WithCwd(c.cwd))
		if got := render(s.ClassifyOutput(c.cmd, Observation{Text: c.out})); got != c.want {
			t.Errorf("%s in %q: got %s, want %s", c.cmd, c.cwd, got, c.want)
		}
	}
}

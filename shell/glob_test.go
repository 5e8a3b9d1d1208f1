package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// globTree is a workspace with the names globs trip on.
func globTree(t *testing.T) string {
	root := t.TempDir()
	for _, f := range []string{"src/a.py", "src/b.py", "src/.hidden.py", "src/c.txt", "src/pkg/d.py", "src/pkg/.e.py", "e.py", "sp ace/f.py", "star*.py", "lit.py", ".top/g.py"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("line\n"), 0o644)
	}
	return root
}

// TestGlobMatchesBash: the expansion is bash's own, pattern for pattern
// (bash run on the same tree, with nullglob).
func TestGlobMatchesBash(t *testing.T) {
	root := globTree(t)
	for _, pattern := range []string{"src/*.py", "*/*.py", "*", ".*", "src/.*", "src/[ab].py", "s*/*", "*/*/*.py", "src/?.py", "src/[!a].py", `star\*.py`, "sp*/*", ".top/*", "src/*/", "nothing*"} {
		cmd := exec.Command("bash", "-c", "shopt -s nullglob; for f in "+pattern+"; do echo \"$f\"; done")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(strings.ReplaceAll(string(out), "sp ace", "sp_ace"))
		var got []string
		for _, m := range glob(DirSource(root), pattern) {
			got = append(got, strings.ReplaceAll(m, "sp ace", "sp_ace"))
		}
		if strings.HasSuffix(pattern, "/") {
			continue // bash keeps the slash; the classifier names the folder
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, bash %v", pattern, got, want)
		}
	}
}

// TestFindMatchesFind: the files find would select, against find itself.
func TestFindMatchesFind(t *testing.T) {
	root := globTree(t)
	for _, args := range [][]string{
		{"src", "-name", "*.py"}, {".", "-name", "*.py"}, {"src", "-maxdepth", "1", "-type", "f"}, {"src", "-mindepth", "2", "-name", "*.py"},
		{".", "-iname", "*.PY"}, {".", "-path", "./src/*", "-name", "*.txt"}, {"src", "sp ace", "-type", "f"},
	} {
		cmd := exec.Command("find", append(args, "-type", "f")...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" && !strings.Contains(l, "/.git/") {
				want = append(want, filepath.Clean(l))
			}
		}
		slices.Sort(want)
		w := &walker{s: NewSession(WithRoot(root), WithFiles(DirSource(root))), res: &Result{}}
		got, ok := w.findFiles(append(args, "-type", "f"))
		if !ok {
			t.Errorf("find %v: not evaluated", args)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("find %v: got %v, find %v", args, got, want)
		}
	}
}

// TestGlobs: with a workspace to list, words the shell would expand name
// the files they match, as bash expands them (sorted, no dotfiles unless
// asked, the word as written when nothing matches); find's -exec runs on
// the files find would select.
func TestGlobs(t *testing.T) {
	root := globTree(t)
	tests := []struct {
		cwd, cmd, want string
	}{
		{"", `cat src/*.py`, "read src/a.py; read src/b.py"},
		{"", `head -n 20 src/*.py`, "read src/a.py:1-20; read src/b.py:1-20"},
		{"src", `cat *.py`, "read src/a.py; read src/b.py"},
		{"src", `cat .*.py`, "read src/.hidden.py"},
		{"", `cat src/*/*.py`, "read src/pkg/d.py"},
		{"", `cat src/[ab].py`, "read src/a.py; read src/b.py"},
		{"", `cat "sp ace"/*.py`, "read sp ace/f.py"},
		{"", `cat 'star*'.py`, "read star*.py"},
		{"", `cat */*.rs`, "read"}, // matches nothing: bash passes it on as written
		{"", `for f in src/*.py; do sed -n 1,2p $f; done`, "read src/a.py:1-2; read src/b.py:1-2"},
		{"", `sed -i s/a/b/ src/*.py`, "edit src/a.py; edit src/b.py"},
		{"src", `cat ../e.py *.txt`, "read e.py; read src/c.txt"},
		// find's -name matches dotfiles (TestFindMatchesFind checks it against find)
		{"", `find src -name '*.py' -exec cat {} +`, "read src/.hidden.py; read src/a.py; read src/b.py; read src/pkg/.e.py; read src/pkg/d.py"},
		{"", `find src -maxdepth 1 -type f -name '[ab].py' -exec head -n 3 {} \;`, "read src/a.py:1-3; read src/b.py:1-3"},
		{"", `find . -name 'd.py' -exec cat {} +`, "read src/pkg/d.py"},
		{"", `find src -name '*.py' -o -name '*.txt' -exec cat {} +`, "read"}, // an expression it does not evaluate
	}
	for _, tt := range tests {
		got := render(Classify(tt.cmd, WithRoot(root), WithFiles(DirSource(root)), WithCwd(tt.cwd)))
		if got != tt.want {
			t.Errorf("(cwd %q) %s\n got %s\nwant %s", tt.cwd, tt.cmd, got, tt.want)
		}
	}
	// without a listing, the classifier says what it cannot know
	if got := render(Classify(`cat src/*.py`)); got != "read" {
		t.Errorf("no listing: %s", got)
	}
}

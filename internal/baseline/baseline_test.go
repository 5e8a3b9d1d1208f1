package baseline

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// write makes files under root: a value starting "->" is a link to the
// rest; nil removes the path.
func write(t *testing.T, root string, files map[string]*string) {
	t.Helper()
	for rel, c := range files {
		p := filepath.Join(root, rel)
		os.RemoveAll(p)
		if c == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(*c, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(*c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func s(v string) *string { return &v }

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var start = map[string]*string{
	"a.py":             s("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"),
	"gone.txt":         s("bye\n"),
	"empty":            s(""),
	"link":             s("->a.py"),
	"pkg/m.py":         s("x = 1\n"),
	"nonl.txt":         s("no newline"),
	"bin.dat":          s("a\x00b"),
	"build/tracked.py": s("tracked under build\n"),
	".gitignore":       s("*.log\nbuild/\n"),
}

var changes = map[string]*string{
	"a.py":               s("one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n"),
	"gone.txt":           nil,
	"empty":              nil,
	"new empty":          s(""),
	"link":               s("pkg/m.py"), // a link became a file
	"pkg/m.py":           s("->../a.py"),
	"nonl.txt":           s("no newline, still"),
	"bin.dat":            s("a\x00c"),
	"build/tracked.py":   s("fixed under build\n"),
	"debug.log":          s("ignored, but the verifier copies it\n"),
	"sub/.git/config":    s("[core]\n\tfsmonitor = evil\n"), // never a file of the diff
	"t\u00e9st \"q\".py": s("quoted name\n"),
	"new/dir/n.py":       s("a\nb\n"),
}

// TestDiffAppliesAsGit is the differential test: the diff git apply
// takes from it turns the start into the workspace, and the files it
// names are the ones git names for the same change (ignored ones
// included, since the verifier copies them).
func TestDiffAppliesAsGit(t *testing.T) {
	dir := t.TempDir()
	ws, copyDir, tree := filepath.Join(dir, "ws"), filepath.Join(dir, "base"), filepath.Join(dir, "check")
	write(t, ws, start)
	b, err := Take(ws, copyDir)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Has("build/tracked.py") || !b.HasDir("build") || b.Has("nope") {
		t.Fatalf("the start's index is wrong: %v", b.Paths())
	}
	write(t, ws, changes)
	os.Chmod(filepath.Join(ws, "new/dir/n.py"), 0o755)

	diff, files, err := b.Diff(ws)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(diff), "fsmonitor") {
		t.Errorf("a .git directory's file is in the diff:\n%s", diff)
	}
	// git, in a repository of the test's own, on the same two trees
	write(t, tree, start)
	git(t, tree, "init", "-q")
	git(t, tree, "add", "-A", "-f")
	git(t, tree, "commit", "-q", "-m", "start")
	write(t, tree, changes)
	os.RemoveAll(filepath.Join(tree, "sub")) // git would take sub/.git as a repository of its own
	os.Chmod(filepath.Join(tree, "new/dir/n.py"), 0o755)
	git(t, tree, "add", "-A", "-f")
	want := git(t, tree, "-c", "core.quotePath=true", "diff", "--cached", "--no-renames", "--name-status")
	var got strings.Builder
	for _, f := range files {
		if f.Status == 'T' {
			if f.NewMode == "" {
				continue // its added half says it
			}
		}
		got.WriteString(string(f.Status) + "\t" + quote(f.Path) + "\n")
	}
	if got.String() != want {
		t.Errorf("files:\n%s\ngit says:\n%s", got.String(), want)
	}

	// the diff, applied by git to the start, gives the workspace
	git(t, tree, "reset", "-q", "--hard")
	git(t, tree, "clean", "-q", "-fdx")
	p := filepath.Join(dir, "final.diff")
	os.WriteFile(p, withoutBinary(diff), 0o644)
	git(t, tree, "apply", "--check", p)
	git(t, tree, "apply", p)
	for rel, c := range changes {
		if strings.HasPrefix(rel, "sub/") || rel == "bin.dat" {
			continue
		}
		gotC, err := content(filepath.Join(tree, rel))
		switch {
		case c == nil && err == nil:
			t.Errorf("%s: still there after the diff", rel)
		case c != nil && (err != nil || gotC != *c):
			t.Errorf("%s: %q (%v) after the diff, want %q", rel, gotC, err, *c)
		}
	}
	if info, err := os.Stat(filepath.Join(tree, "new/dir/n.py")); err != nil || info.Mode()&0o100 == 0 {
		t.Errorf("the executable bit did not come with the diff: %v", err)
	}
}

// withoutBinary leaves out binary sections, which git apply takes only
// as --binary patches.
func withoutBinary(d []byte) []byte {
	var out, sec bytes.Buffer
	flush := func() {
		if !bytes.Contains(sec.Bytes(), []byte("\nBinary files ")) {
			out.Write(sec.Bytes())
		}
		sec.Reset()
	}
	for _, l := range bytes.SplitAfter(d, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("diff --git ")) {
			flush()
		}
		sec.Write(l)
	}
	flush()
	return out.Bytes()
}

func content(p string) (string, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		l, err := os.Readlink(p)
		return "->" + l, err
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

func TestDiffIgnoresGitItself(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	write(t, ws, map[string]*string{"a": s("1\n")})
	b, err := Take(ws, filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	// what an agent may do to git: none of it changes the diff
	write(t, ws, map[string]*string{".git/config": s("[core]\nfsmonitor=x\n"), ".gitattributes": s("* -diff\n"), "a": s("2\n")})
	diff, files, err := b.Diff(ws)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, f := range files {
		names = append(names, f.Path)
	}
	if !slices.Equal(names, []string{".gitattributes", "a"}) || !strings.Contains(string(diff), "-1\n+2\n") {
		t.Errorf("files %v, diff:\n%s", names, diff)
	}
}

func TestDiffBigFileIsHashed(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	write(t, ws, map[string]*string{"big": s(strings.Repeat("x\n", 100))})
	b, err := Take(ws, filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	// a sparse file far past the limit: read in full only to hash it
	f, _ := os.OpenFile(filepath.Join(ws, "sparse"), os.O_CREATE|os.O_WRONLY, 0o644)
	f.Truncate(64 << 20)
	f.Close()
	diff, files, err := b.Diff(ws, WithMaxText(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "sparse" || !files[0].Binary || !strings.Contains(string(diff), "Binary files /dev/null and b/sparse differ") {
		t.Errorf("files %+v\n%s", files, diff)
	}
	if _, files, _ := b.Diff(ws); len(files) != 1 {
		t.Errorf("the unchanged big file differs: %+v", files)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.py":    "a/b.py",
		"a/t\u00e9": `"a/t\303\251"`,
		"a/\x01\t":  `"a/\001\t"`,
		`a/"\`:      `"a/\"\\"`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDiffAsGitWithAttributes: with the start's .gitattributes naming
// git's python driver and a binary pattern, the diff is git's own, byte
// for byte (the function in each hunk's header, the binary file).
func TestDiffAsGitWithAttributes(t *testing.T) {
	dir := t.TempDir()
	ws, tree := filepath.Join(dir, "ws"), filepath.Join(dir, "check")
	method := "class Shape:\n    def area(self):\n        a = 1\n        b = 2\n        c = 3\n        return a\n\n    def size(self):\n        return 0\n"
	files := map[string]*string{
		".gitattributes": s("*.py diff=python\ndata/*.fits binary\n"),
		"m.py":           s(method),
		"data/x.fits":    s("text, but binary by attribute\n"),
		"notes.txt":      s("intro\n  indented\n" + strings.Repeat("line\n", 6)),
	}
	edits := map[string]*string{
		"m.py":        s(strings.Replace(method, "        c = 3\n", "        c = 4\n", 1)),
		"data/x.fits": s("changed\n"),
		"notes.txt":   s("intro\n  indented\n" + strings.Repeat("line\n", 5) + "last\n"),
	}
	write(t, ws, files)
	b, err := Take(ws, filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, edits)
	got, _, err := b.Diff(ws)
	if err != nil {
		t.Fatal(err)
	}
	write(t, tree, files)
	git(t, tree, "init", "-q")
	git(t, tree, "add", "-A")
	git(t, tree, "commit", "-q", "-m", "start")
	write(t, tree, edits)
	want := git(t, tree, "diff", "--no-color", "HEAD")
	if string(got) != want {
		t.Errorf("diff:\n%s\ngit's:\n%s", got, want)
	}
}

// TestDiffTotalBounded: past the total, changed files are still named,
// as binary.
func TestDiffTotalBounded(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	write(t, ws, map[string]*string{"a": s("1\n")})
	b, err := Take(ws, filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]*string{"a": s("2\n"), "b": s(strings.Repeat("x\n", 100)), "c": s("3\n")})
	diff, files, err := b.Diff(ws, WithMaxTotal(150))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[0].Binary || !files[2].Binary || !strings.Contains(string(diff), "Binary files /dev/null and b/c differ") {
		t.Errorf("files %+v\n%s", files, diff)
	}
}

package watch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/baseline"
)

// repo makes a git work tree with the given files committed.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// start is dir as it is now, kept outside it.
func start(t *testing.T, dir string) *baseline.Tree {
	t.Helper()
	b, err := baseline.Take(dir, filepath.Join(t.TempDir(), "base"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// watched is a watcher over a new repo of files, closed when the test ends.
func watched(t *testing.T, files map[string]string) (string, *Watcher) {
	t.Helper()
	dir := repo(t, files)
	w, err := New(dir, From(start(t, dir)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return dir, w
}

func bash(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
}

// changesOf is what one Sync sees after script ran over a new repo of
// files, diffs left out.
func changesOf(t *testing.T, files map[string]string, script string) []Change {
	t.Helper()
	dir, w := watched(t, files)
	bash(t, dir, script)
	got, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Diff = ""
	}
	return got
}

const ten = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"

// TestEditsDetected: every way an agent changes files is seen by the Sync
// right after it, with the changed lines of the new content.
func TestEditsDetected(t *testing.T) {
	tests := []struct {
		name, script string
		want         []Change
	}{
		{"sed -i", "sed -i 's/l5/five/' a.txt", []Change{{Path: "a.txt", Ranges: []Range{{5, 5}}}}},
		{"python write", "python3 -c \"p='a.txt'; s=open(p).read(); open(p,'w').write(s.replace('l2\\n','l2\\nnew\\n'))\"", []Change{{Path: "a.txt", Ranges: []Range{{3, 3}}}}},
		{"heredoc", "cat > pkg/new.py <<'EOF'\nx = 1\ny = 2\nEOF", []Change{{Path: "pkg/new.py", Ranges: []Range{{1, 2}}, Created: true}}},
		{"git checkout --", "sed -i 's/l9/nine/' a.txt && git checkout -- a.txt", nil},
		{"temp and rename", "sed 's/l7/seven/;s/l8/eight/' a.txt > a.tmp && mv a.tmp a.txt", []Change{{Path: "a.txt", Ranges: []Range{{7, 8}}}}},
		{"deleted lines", "sed -i '3,4d' a.txt", []Change{{Path: "a.txt", Ranges: []Range{{2, 2}}}}},
		{"new directory", "mkdir -p d/e && printf 'a\\nb\\n' > d/e/f.txt", []Change{{Path: "d/e/f.txt", Ranges: []Range{{1, 2}}, Created: true}}},
		{"ignored", "mkdir -p __pycache__ && echo x > __pycache__/a.pyc && echo y > b.log", nil},
		{"rm", "rm pkg/m.py", []Change{{Path: "pkg/m.py", Deleted: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changesOf(t, map[string]string{"a.txt": ten, "pkg/m.py": "m = 1\n", ".gitignore": "*.log\n"}, tt.script)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestNativeWriteAndAccept: a write by a process that is not a command
// (here the test itself) is seen; content the caller accepted as its own
// write is not reported again.
func TestNativeWriteAndAccept(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.txt": ten})
	p := filepath.Join(dir, "a.txt")
	os.WriteFile(p, []byte("l1\nL2\n"), 0o644)
	got, _ := w.Sync(context.Background())
	if len(got) != 1 || !reflect.DeepEqual(got[0].Ranges, []Range{{2, 2}}) {
		t.Fatalf("native write: %+v", got)
	}
	mine := "l1\nL2\nuser\n"
	os.WriteFile(p, []byte(mine), 0o644)
	w.Accept("a.txt", &mine)
	if got, _ := w.Sync(context.Background()); len(got) != 0 {
		t.Errorf("accepted write reported: %+v", got)
	}
}

func TestUnifiedDiffApplies(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": ten})
	w, _ := New(dir, From(start(t, dir)))
	defer w.Close()
	bash(t, dir, "sed -i 's/l2/two/;s/l9/nine/;$a tail' a.txt")
	got, _ := w.Sync(context.Background())
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	// the diff takes HEAD to the new content, as git apply sees it
	bash(t, dir, "cp a.txt /tmp/want.$$ && git checkout -q -- a.txt && printf '%s' \""+escape(got[0].Diff)+"\" | git apply - && cmp a.txt /tmp/want.$$; rm -f /tmp/want.$$")
}

func escape(s string) string {
	var b []byte
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' || c == '$' || c == '`' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(b)
}

// TestIgnoring: what swetouch writes inside the workspace (a session's
// --out, its private directory), given absolute or relative, is not the
// agent's edit; a directory outside the root is no option at all.
func TestIgnoring(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": ten})
	for _, d := range []string{"out", "priv/deep"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	w, err := New(dir, From(start(t, dir)), Ignoring(filepath.Join(dir, "out"), "priv/deep", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	bash(t, dir, "echo x > out/trajectory.jsonl; mkdir -p out/sub; echo y > out/sub/f; echo z > priv/deep/g; echo w > priv/h; echo l11 >> a.txt")
	got, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
	}
	if want := []string{"a.txt", "priv/h"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("changes in %q, want %q", paths, want)
	}
}

// TestTrackedFilesWatchedWherever: a file of the start under a directory
// the watcher otherwise ignores (build/, a .gitignore'd one) is edited
// like any other; a new file beside it is still an artifact, unseen.
func TestTrackedFilesWatchedWherever(t *testing.T) {
	dir, w := watched(t, map[string]string{"build/lib.py": "x = 1\n", "gen/g.py": "g = 1\n", ".gitignore": "gen/\n"})
	bash(t, dir, "echo 'x = 2' > build/lib.py; echo 'g = 2' > gen/g.py; echo junk > build/artifact.o; echo junk > gen/new.py")
	got, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
	}
	if want := []string{"build/lib.py", "gen/g.py"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("changes in %q, want %q", paths, want)
	}
}

// TestSyncSeesTheLastWrite: each Sync, made right after a write with no
// wait between, sees that write; none is left for the next one.
func TestSyncSeesTheLastWrite(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.txt": ten})
	p := filepath.Join(dir, "a.txt")
	for i := range 200 {
		os.WriteFile(p, []byte(ten+strings.Repeat("x\n", i+1)), 0o644)
		got, err := w.Sync(context.Background())
		if err != nil {
			t.Fatalf("sync %d: %v", i, err)
		}
		if len(got) != 1 || !reflect.DeepEqual(got[0].Ranges, []Range{{11 + i, 11 + i}}) {
			t.Fatalf("sync %d: %+v", i, got)
		}
	}
}

// TestDirectories: a directory removed, moved away or renamed takes its
// files with it (a move reports nothing of them); one renamed is watched
// at its new name.
func TestDirectories(t *testing.T) {
	files := map[string]string{"a.txt": ten, "pkg/m.py": "m = 1\n", "pkg/sub/n.py": "n = 1\n"}
	gone := []Change{{Path: "pkg/m.py", Deleted: true}, {Path: "pkg/sub/n.py", Deleted: true}}
	tests := []struct {
		name, script string
		want         []Change
	}{
		{"rm -r", "rm -r pkg", gone},
		{"moved away", "mv pkg ../away", gone},
		// a moved file is still the start's file, under a new name: its
		// new name alone edits nothing of it, a write to it does
		{"renamed", "mv pkg lib", []Change{
			{Path: "lib/m.py", Created: true},
			{Path: "lib/sub/n.py", Created: true},
			gone[0], gone[1]}},
		{"renamed, then written", "mv pkg lib && echo x >> lib/sub/n.py", []Change{
			{Path: "lib/m.py", Created: true},
			{Path: "lib/sub/n.py", Ranges: []Range{{2, 2}}, Created: true, Also: []string{"pkg/sub/n.py"}},
			gone[0], gone[1]}},
		{"edited, then moved away", "echo y >> pkg/m.py && mv pkg ../away", gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := changesOf(t, files, tt.script); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// a renamed directory's later writes are seen under its new name
	dir, w := watched(t, files)
	bash(t, dir, "mv pkg lib")
	w.Sync(context.Background())
	bash(t, dir, "echo z >> lib/sub/n.py")
	got, _ := w.Sync(context.Background())
	if len(got) != 1 || got[0].Path != "lib/sub/n.py" || !reflect.DeepEqual(got[0].Ranges, []Range{{2, 2}}) {
		t.Errorf("write after rename: %+v", got)
	}
}

// TestChangedWithoutSync: the background reader notices a write while
// nobody syncs (the owner's cue to take a native edit).
func TestChangedWithoutSync(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.txt": ten})
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
	<-w.Changed()
	if !w.Pending() {
		t.Error("Changed signalled, but nothing pending")
	}
}

// TestAtomicSaveTemp: an editor's atomic-save temporary file (Claude
// Code's NAME.tmp.PID.HEX) is never an edit of its own, whatever the
// timing of its rename over the real file; other names that merely hold
// ".tmp" are files like any.
func TestAtomicSaveTemp(t *testing.T) {
	ig := loadIgnorer(t.TempDir())
	for name, want := range map[string]bool{
		"pricing.py.tmp.2.0781ea35f23a": true,
		"src/a.go.tmp.12345.deadbeef00": true,
		"notes.tmp":                     false,
		"data.tmp.2024":                 false,
		"pricing.py":                    false,
		"build.tmp.1.x":                 false,
	} {
		if got := ig.ignored(name, false); got != want {
			t.Errorf("%s: ignored %v, want %v", name, got, want)
		}
	}
}

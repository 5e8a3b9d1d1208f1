package watch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWhatAnAgentLeavesCostsLittle: a sparse file far past the read limit,
// a file holding a NUL, and a file replaced by a link are each one change
// shown as a whole, and reading them holds none of their bytes.
func TestWhatAnAgentLeavesCostsLittle(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.py": "x = 1\n", "b.py": "y = 1\n"})
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(256 << 20)
	f.Close()
	os.WriteFile(filepath.Join(dir, "nul"), []byte("a\x00b\n"), 0o644)
	// a.py becomes a link to a file of the same content: still an edit
	os.WriteFile(filepath.Join(dir, "a2.py"), []byte("x = 1\n"), 0o644)
	os.Remove(filepath.Join(dir, "a.py"))
	os.Symlink("a2.py", filepath.Join(dir, "a.py"))
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("the watcher allocated %d MiB for a 256 MiB sparse file", grew>>20)
	}
	byPath := map[string]Change{}
	for _, c := range got {
		byPath[c.Path] = c
	}
	for _, p := range []string{"sparse", "nul", "a.py"} {
		c, ok := byPath[p]
		if !ok {
			t.Errorf("%s: no change in %+v", p, got)
			continue
		}
		if len(c.Ranges) != 0 || !strings.HasPrefix(c.Diff, "Binary files ") || len(c.Diff) > 200 {
			t.Errorf("%s: %+v, want the whole file as the change", p, c)
		}
	}
	// unchanged since, they are no change again
	os.WriteFile(filepath.Join(dir, "b.py"), []byte("y = 2\n"), 0o644)
	if got, _ := w.Sync(context.Background()); len(got) != 1 || got[0].Path != "b.py" {
		t.Errorf("after the first sync: %+v", got)
	}
}

// TestKeepBudget: past the budget a file is kept as its summary, and an
// unchanged file is still no change, a changed one still a change.
func TestKeepBudget(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": ten})
	w, err := New(dir, From(start(t, dir)), Keep(10))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	bash(t, dir, "echo new > b.txt; echo l11 >> a.txt")
	if got, _ := w.Sync(context.Background()); len(got) != 2 {
		t.Fatalf("first sync: %+v", got)
	}
	if w.kept > 10 {
		t.Errorf("kept %d bytes of text, budget 10", w.kept)
	}
	bash(t, dir, "touch a.txt; echo new > b.txt")
	if got, _ := w.Sync(context.Background()); len(got) != 0 {
		t.Errorf("unchanged files changed: %+v", got)
	}
	bash(t, dir, "echo l12 >> a.txt")
	if got, _ := w.Sync(context.Background()); len(got) != 1 || got[0].Path != "a.txt" {
		t.Errorf("a changed file kept as a summary: %+v", got)
	}
}

package task

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// passingTask is a task whose test.sh passes any workspace: only what
// the copy makes of the workspace can fail it.
func passingTask(t *testing.T) *Task {
	t.Helper()
	dir := t.TempDir()
	tests := filepath.Join(dir, "tests")
	os.MkdirAll(tests, 0o755)
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte("exit 0\n"), 0o755)
	os.MkdirAll(filepath.Join(dir, "repo"), 0o755)
	return &Task{Name: "t", Dir: dir, Repo: filepath.Join(dir, "repo"), Tests: tests, Timeout: time.Minute}
}

func allocatedOf(t *testing.T, p string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestSparseStaysSparse: a 1 GiB file holding 8 KiB of data costs the
// copy about 8 KiB, and reads the same. With a plain io.Copy the copy
// took the whole GiB (seen).
func TestSparseStaysSparse(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	f, err := os.Create(filepath.Join(src, "big"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 512 << 20, 1<<30 - 4096} {
		if _, err := f.WriteAt([]byte(strings.Repeat("x", 4096)[:4096-int(off%7)]), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Truncate(1 << 30)
	f.Close()
	if _, err := CopyRegular(src, dst); err != nil {
		t.Fatal(err)
	}
	got := allocatedOf(t, filepath.Join(dst, "big"))
	if want := allocatedOf(t, filepath.Join(src, "big")); got > 4*want {
		t.Errorf("the copy takes %d bytes on disk, the file %d", got, want)
	}
	if info, err := os.Stat(filepath.Join(dst, "big")); err != nil || info.Size() != 1<<30 {
		t.Fatalf("the copy's size: %v %v", info, err)
	}
	a, _ := os.Open(filepath.Join(src, "big"))
	b, _ := os.Open(filepath.Join(dst, "big"))
	defer a.Close()
	defer b.Close()
	// the data and the holes on either side of it read the same
	for _, off := range []int64{0, 512<<20 - 4096, 1<<30 - 8192} {
		x, y := make([]byte, 12288), make([]byte, 12288)
		a.ReadAt(x, off)
		b.ReadAt(y, off)
		if string(x) != string(y) {
			t.Errorf("the copy reads otherwise at %d", off)
		}
	}
}

// TestOverBudgetIsFalse: a workspace past any bound of its budget is not
// resolved, with the bound in the reason, however the tests would have
// gone; within it, the tests decide.
func TestOverBudgetIsFalse(t *testing.T) {
	budget := Budget{Bytes: 1 << 20, Apparent: 64 << 20, Files: 50}
	for _, c := range []struct {
		name, want string
		make       func(ws string)
	}{
		{"on disk", "on disk", func(ws string) {
			os.WriteFile(filepath.Join(ws, "blob"), make([]byte, 2<<20), 0o644)
		}},
		{"apparent", "apparent size", func(ws string) {
			f, _ := os.Create(filepath.Join(ws, "sparse"))
			f.Truncate(1 << 40) // a TiB of holes: no disk, but past what a test may read
			f.Close()
		}},
		{"files", "more than 50 files", func(ws string) {
			for i := range 60 {
				os.WriteFile(filepath.Join(ws, "f"+strings.Repeat("x", i)), nil, 0o644)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, ws := passingTask(t), t.TempDir()
			c.make(ws)
			v := Verify(context.Background(), tk, ws, WithBudget(budget))
			if v.Resolved == nil || *v.Resolved || !strings.Contains(v.Reason, c.want) {
				t.Errorf("resolved %v (%s), want false for %q", show(v.Resolved), v.Reason, c.want)
			}
			// the same workspace with no bound resolves: the test.sh passes it
			if v := Verify(context.Background(), tk, ws, WithBudget(Budget{})); v.Resolved == nil || !*v.Resolved {
				t.Errorf("unbounded: resolved %v (%s), want true", show(v.Resolved), v.Reason)
			}
		})
	}
	// a 1 GiB sparse file (the attack of issue 49) is within the default
	// budget, and copied without filling anything
	tk, ws := passingTask(t), t.TempDir()
	f, _ := os.Create(filepath.Join(ws, "sparse"))
	f.Truncate(1 << 30)
	f.Close()
	if v := Verify(context.Background(), tk, ws); v.Resolved == nil || !*v.Resolved {
		t.Errorf("a 1 GiB sparse file: resolved %v (%s), want true", show(v.Resolved), v.Reason)
	}
}

// TestNameTooLongIsFalse: a path the workspace holds but the copy, under
// a longer root, cannot name is the agent's: false, not null.
func TestNameTooLongIsFalse(t *testing.T) {
	root, err := os.MkdirTemp("/tmp", "w")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	p := root
	for len(p) < 4000 {
		p = filepath.Join(p, strings.Repeat("d", 200))
	}
	p = filepath.Join(p, strings.Repeat("f", 4090-len(p)))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := Verify(context.Background(), passingTask(t), root)
	if v.Resolved == nil || *v.Resolved || !strings.Contains(v.Reason, "too long") {
		t.Errorf("resolved %v (%s), want false: a name too long", show(v.Resolved), v.Reason)
	}
}

func show(b *bool) string {
	switch {
	case b == nil:
		return "null"
	case *b:
		return "true"
	}
	return "false"
}

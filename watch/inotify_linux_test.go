package watch

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMovedAwayUnwatched: a directory moved out of the workspace is no
// longer watched, so writes where it went are not taken for changes under
// its old name; one moved within it is watched at its new name only.
func TestMovedAwayUnwatched(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.txt": ten, "pkg/m.py": "m = 1\n", "pkg/sub/n.py": "n = 1\n", "lib/o.py": "o = 1\n"})
	src := w.src.(*inotify)
	watchedDirs := func() int {
		src.dirsMu.Lock()
		defer src.dirsMu.Unlock()
		return len(src.dirs)
	}
	if n := watchedDirs(); n != 4 {
		t.Fatalf("watching %d directories, want 4 (root, pkg, pkg/sub, lib)", n)
	}
	away := filepath.Join(t.TempDir(), "away")
	bash(t, dir, "mv pkg "+away+" && mv lib lib2")
	w.Sync(context.Background())
	if n := watchedDirs(); n != 2 {
		t.Errorf("watching %d directories after the moves, want 2 (root, lib2)", n)
	}
	os.WriteFile(filepath.Join(away, "sub", "n.py"), []byte("changed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib2", "o.py"), []byte("changed\n"), 0o644)
	got, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "lib2/o.py" {
		t.Errorf("after writing in both: %+v, want lib2/o.py alone", got)
	}
}

// recorder is a handler that keeps what it is handed.
type recorder struct {
	names []string
	fails int
}

func (r *recorder) event(name string, o op)    { r.names = append(r.names, name) }
func (r *recorder) fail(error)                 { r.fails++ }
func (r *recorder) moved(string, string, bool) {}

// FuzzInotifyEvents: whatever a read returns, parsing it hands on only
// names under watched directories and never reads past the buffer.
func FuzzInotifyEvents(f *testing.F) {
	ev := func(wd int32, mask uint32, name string) []byte {
		b := binary.NativeEndian.AppendUint32(nil, uint32(wd))
		b = binary.NativeEndian.AppendUint32(b, mask)
		b = binary.NativeEndian.AppendUint32(b, 0)
		padded := append([]byte(name), make([]byte, 16-len(name)%16)...)
		b = binary.NativeEndian.AppendUint32(b, uint32(len(padded)))
		return append(b, padded...)
	}
	f.Add(ev(1, syscall.IN_MODIFY, "a.txt"))
	f.Add(append(ev(1, syscall.IN_MOVED_FROM|syscall.IN_ISDIR, "pkg"), ev(2, syscall.IN_CREATE, "x")...))
	f.Add(ev(0, syscall.IN_Q_OVERFLOW, ""))
	f.Add(ev(2, syscall.IN_IGNORED, ""))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &recorder{}
		s := &inotify{fd: -1, to: r, dirs: map[int32]string{1: "/ws", 2: "/ws/pkg"}}
		s.handle(b)
		for _, n := range r.names {
			if !strings.HasPrefix(n, "/ws/") {
				t.Errorf("handed on %q", n)
			}
		}
	})
}

// TestEventsLost: when the kernel drops events (its queue overflowed),
// the next Sync rescans: the changes are reported all the same and a
// directory whose creation was lost is watched from then on.
func TestEventsLost(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.txt": ten, "b.txt": "b\n"})
	bash(t, dir, "echo x >> a.txt && mkdir -p d && echo y > d/new.txt && rm b.txt")
	ctx := context.Background()
	w.src.flush(ctx)
	// as if the kernel had dropped them
	w.mu.Lock()
	w.dirty = map[string]bool{}
	w.mu.Unlock()
	w.src.(*inotify).forget(filepath.Join(dir, "d"))
	w.fail(ErrEventsLost)
	got, err := w.Sync(ctx)
	if err != nil {
		t.Fatalf("Sync after lost events: %v", err)
	}
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
	}
	if want := []string{"a.txt", "b.txt", "d/new.txt"}; strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("changes %q, want %q", paths, want)
	}
	bash(t, dir, "echo z > d/later.txt")
	if got, _ := w.Sync(ctx); len(got) != 1 || got[0].Path != "d/later.txt" {
		t.Errorf("a write in the directory whose event was lost: %+v", got)
	}
}

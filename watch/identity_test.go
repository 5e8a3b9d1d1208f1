package watch

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestEditsFollowTheFile: a file edited through a hard link, or moved and
// edited under its new name, is the start's file edited; a file that
// kept its name through sed -i keeps its identity; a new file that got a
// forgotten file's inode number is no start file.
func TestEditsFollowTheFile(t *testing.T) {
	tests := []struct {
		name, script string
		want         map[string][]string // path: Also
	}{
		{"hard link", "ln a.txt link.txt && sed -n 5p link.txt >/dev/null && echo l11 >> link.txt",
			map[string][]string{"a.txt": nil, "link.txt": {"a.txt"}}},
		{"moved, then edited", "mv a.txt b.txt && echo l11 >> b.txt",
			map[string][]string{"a.txt": nil, "b.txt": {"a.txt"}}},
		{"sed -i, then moved", "sed -i 's/l5/five/' a.txt && mv a.txt c.txt",
			map[string][]string{"a.txt": nil, "c.txt": {"a.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, w := watched(t, map[string]string{"a.txt": ten, "other.txt": "o\n"})
			bash(t, dir, tt.script)
			got, err := w.Sync(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			also := map[string][]string{}
			for _, c := range got {
				also[c.Path] = c.Also
			}
			if !reflect.DeepEqual(also, tt.want) {
				t.Errorf("changes %+v, want paths and Also %v", got, tt.want)
			}
			for p, names := range tt.want {
				if name, ok := w.StartName(p); len(names) > 0 && (!ok || name != names[0]) {
					t.Errorf("StartName(%s) = %q, %v", p, name, ok)
				}
			}
		})
	}
}

// TestForgottenInodeIsNoFile: once no name holds a start file's inode,
// a new file with the same number is not that file.
func TestForgottenInodeIsNoFile(t *testing.T) {
	dir, w := watched(t, map[string]string{"a.txt": ten})
	bash(t, dir, "rm a.txt")
	w.Sync(context.Background())
	w.mu.Lock()
	n := len(w.id.names) + len(w.id.origin)
	w.mu.Unlock()
	if n != 0 {
		t.Errorf("the removed file is still known: %v %v", w.id.names, w.id.origin)
	}
	// files a kernel may give the freed number again (ext4 does)
	for i := range 50 {
		bash(t, dir, fmt.Sprintf("echo %d > n%d.txt", i, i))
	}
	got, _ := w.Sync(context.Background())
	for _, c := range got {
		if len(c.Also) > 0 {
			t.Errorf("a new file taken for a start file: %+v", c)
		}
	}
}

// TestBurstFolded: a command that makes more new files than the burst
// gives one change per directory with no diffs; an edit of a start file
// in the same command is still its own change.
func TestBurstFolded(t *testing.T) {
	dir := repo(t, map[string]string{"a.txt": ten})
	w, err := New(dir, From(start(t, dir)), Burst(10))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	bash(t, dir, "mkdir -p gen/x gen/y && for i in $(seq 30); do echo $i > gen/x/f$i; echo $i > gen/y/g$i; done; echo l11 >> a.txt")
	got, err := w.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	files := 0
	for _, c := range got {
		paths = append(paths, c.Path)
		files += c.Files
	}
	if want := []string{"a.txt", "gen/x", "gen/y"}; !reflect.DeepEqual(paths, want) || files != 60 {
		t.Errorf("changes %q (%d files), want %q (60)", paths, files, want)
	}
	// a folded file is known afterwards: an edit of it is a change of it
	bash(t, dir, "echo more >> gen/x/f3")
	if got, _ := w.Sync(context.Background()); len(got) != 1 || got[0].Path != "gen/x/f3" || got[0].Created || !reflect.DeepEqual(got[0].Ranges, []Range{{2, 2}}) {
		t.Errorf("after the burst: %+v", got)
	}
}

//go:build linux

package patch

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteKeepsOwner: a file (and a folder) the host writes into a
// workspace given to a trial's uid stays that uid's, so the agent can edit
// what a Counter-Edit wrote. Without the chown both were root's (seen).
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const uid, gid = 2_000_100_900, 2_000_100_900
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.py"), []byte("x = 1\n"), 0o644)
	for _, p := range []string{root, filepath.Join(root, "a.py")} {
		if err := os.Lchown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	d := Dir(root)
	if err := d.WriteFile("a.py", []byte("x = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("new/b.py", []byte("y = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.py", "new", "new/b.py"} {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(root, p), &st); err != nil {
			t.Fatal(err)
		}
		if st.Uid != uid || st.Gid != gid {
			t.Errorf("%s is %d:%d, want %d:%d", p, st.Uid, st.Gid, uid, gid)
		}
	}
}

package task

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// resolution is what the kernel makes of a path beneath a root.
type resolution int

const (
	resolvesInside resolution = iota
	leaves                    // a step climbs out, a link is absolute, or links loop
	dangles                   // a component does not exist
)

// kernelEscapes asks the kernel whether rel, resolved beneath root,
// leaves it: openat2 with RESOLVE_BENEATH fails with EXDEV when a step
// would (ELOOP for a loop, which resolves nowhere).
func kernelEscapes(t *testing.T, root, rel string) (resolution, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dir)
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH}
	fd, err := unix.Openat2(dir, rel, how)
	for try := 0; err == unix.EAGAIN && try < 1000; try++ {
		// a rename anywhere (the other packages' tests) while it climbed
		// a "..": the kernel could not rule out an escape, and says to
		// try again
		fd, err = unix.Openat2(dir, rel, how)
	}
	if err == nil {
		unix.Close(fd)
		return resolvesInside, nil
	}
	switch {
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		return leaves, nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		return dangles, nil
	}
	return leaves, err
}

// TestLinksResolveAsTheKernelDoes: for trees of random links, escapes
// agrees with the kernel's own resolution beneath the root, link by link:
// a link the kernel takes out is always left out, one it resolves inside
// is always kept. A dangling link may go either way: taking its missing
// names as they are spelled, escapes leaves out those that would climb
// out once the names exist.
func TestLinksResolveAsTheKernelDoes(t *testing.T) {
	if _, err := kernelEscapes(t, t.TempDir(), "."); errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skip("openat2 is not in this kernel")
	}
	targets := []string{".", "..", "../..", "a", "a/b", "../x", "a/../..", "l0", "l1/..", "l2/../..", "/etc", "a/l3", "nothing", "../a", "a/b/../../..", "l0/l1", "./a/./b"}
	rng := rand.New(rand.NewPCG(1, 2))
	for tree := range 200 {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
		var links []string
		for i := range 6 {
			dir := []string{".", "a", "a/b"}[rng.IntN(3)]
			rel := filepath.Join(dir, fmt.Sprintf("l%d", i))
			target := targets[rng.IntN(len(targets))]
			if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
				continue
			}
			links = append(links, rel+" -> "+target)
		}
		for _, l := range links {
			rel := strings.SplitN(l, " -> ", 2)[0]
			kernel, err := kernelEscapes(t, root, rel)
			if err != nil {
				t.Fatalf("tree %d, %s: %v", tree, l, err)
			}
			got := escapes(root, rel) != ""
			if kernel == leaves && !got || kernel == resolvesInside && got {
				t.Errorf("tree %d %q: %s escapes=%v, the kernel says %v", tree, links, l, got, []string{"inside", "out", "dangling"}[kernel])
			}
		}
	}
}

// TestCopyRegularLeavesOut: the copy holds regular files, directories and
// links inside, and names what it left out.
func TestCopyRegularLeavesOut(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	os.WriteFile(filepath.Join(src, "f.py"), []byte("x = 1\n"), 0o644)
	os.Mkdir(filepath.Join(src, "d"), 0o755)
	os.Symlink("../f.py", filepath.Join(src, "d", "in"))
	os.Symlink("/etc/passwd", filepath.Join(src, "abs"))
	os.Symlink("d/../..", filepath.Join(src, "up"))
	unix.Mkfifo(filepath.Join(src, "fifo"), 0o644)
	left, err := CopyRegular(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"abs: a link to /etc/passwd, outside the workspace", "fifo: a FIFO, not copied", "up: a link to d/../.., which leaves the workspace"}
	if strings.Join(left, "\n") != strings.Join(want, "\n") {
		t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(left, "\n"), strings.Join(want, "\n"))
	}
	if b, err := os.ReadFile(filepath.Join(dst, "d", "in")); err != nil || string(b) != "x = 1\n" {
		t.Errorf("the link inside: %q %v", b, err)
	}
}

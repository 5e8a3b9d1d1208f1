package devdata

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Checkout writes the tree of commit in the bare repository gitDir to dst
// and returns the paths it could not write because the mirror lacks their
// blobs (a snapshot may leave its largest files out). Modes are kept:
// executables, symlinks. Submodules are skipped.
func Checkout(gitDir, commit, dst string) (missing []string, err error) {
	ls, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "-z", "--full-tree", commit).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %w", commit, err)
	}
	type entry struct{ mode, sha, path string }
	var entries []entry
	for _, rec := range bytes.Split(ls, []byte{0}) {
		meta, path, ok := strings.Cut(string(rec), "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode type sha
		if len(f) == 3 && f[1] == "blob" {
			entries = append(entries, entry{f[0], f[2], path})
		}
	}
	cat := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	in, _ := cat.StdinPipe()
	outPipe, _ := cat.StdoutPipe()
	if err := cat.Start(); err != nil {
		return nil, err
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, e := range entries {
			fmt.Fprintln(w, e.sha)
		}
		w.Flush()
		in.Close()
	}()
	r := bufio.NewReaderSize(outPipe, 1<<20)
	for _, e := range entries {
		header, err := r.ReadString('\n')
		if err != nil {
			cat.Process.Kill()
			cat.Wait()
			return nil, err
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			missing = append(missing, e.path)
			continue
		}
		if len(f) != 3 {
			cat.Process.Kill()
			cat.Wait()
			return nil, fmt.Errorf("git cat-file: %q", header)
		}
		size, _ := strconv.Atoi(f[2])
		body := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(r, body); err != nil {
			cat.Process.Kill()
			cat.Wait()
			return nil, err
		}
		body = body[:size]
		p := filepath.Join(dst, filepath.FromSlash(e.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		switch e.mode {
		case "120000":
			err = os.Symlink(string(body), p)
		case "100755":
			err = os.WriteFile(p, body, 0o755)
		default:
			err = os.WriteFile(p, body, 0o644)
		}
		if err != nil {
			return nil, err
		}
	}
	return missing, cat.Wait()
}

package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/swetouch/swetouch/internal/atomicfile"
)

// ErrNotFound is wrapped by Scrubbed's error when exe does not hold the
// data it must leave out (a compressed build): a sandbox would show it.
var ErrNotFound = errors.New("the data to leave out is not in the executable")

// Scrubbed is a copy of exe with every occurrence of each of data
// overwritten by zeros: swetouch with the example tasks' archive (their
// hidden tests, solutions and records) blanked, to be shown to sandboxes
// in place of swetouch itself (Runner.Over), which hooks, relays and the
// scripted agents run. The copy is kept in dir under a name made of exe's
// identity (device, inode, size, change time) and the data's digest, so a
// process makes it once per build. The copy runs as exe does: Go reads an
// embedded file's bytes only when asked for them.
func Scrubbed(exe, dir string, data ...[]byte) (string, error) {
	info, err := os.Stat(exe)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("sandbox: %s: no device and inode", exe)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %d %d %d %d.%d\n", exe, st.Dev, st.Ino, st.Size, st.Ctim.Sec, st.Ctim.Nsec)
	for _, d := range data {
		s := sha256.Sum256(d)
		h.Write(s[:])
	}
	out := filepath.Join(dir, filepath.Base(exe)+"-"+hex.EncodeToString(h.Sum(nil))[:24])
	if info, err := os.Stat(out); err == nil && info.Mode().IsRegular() {
		return out, nil
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	for _, d := range data {
		if len(d) == 0 {
			continue
		}
		n := 0
		for i := bytes.Index(b, d); i >= 0; i = bytes.Index(b, d) {
			clear(b[i : i+len(d)])
			n++
		}
		if n == 0 {
			return "", fmt.Errorf("sandbox: %s: %w", exe, ErrNotFound)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	if err := atomicfile.WriteBytes(out, 0o755, b); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return out, nil
}

// over binds each of r.Over's replacements over its path where a bound
// path holds it.
func (r *Runner) over(bound []string, own map[string]string) []string {
	over := maps.Clone(r.Over)
	if over == nil {
		over = map[string]string{}
	}
	maps.Copy(over, own)
	var a []string
	for _, p := range slices.Sorted(maps.Keys(over)) {
		if Under(p, bound) {
			a = append(a, "--ro-bind", over[p], p)
		}
	}
	return a
}

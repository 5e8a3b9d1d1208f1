package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/swetouch/swetouch/result"
)

// ManifestFile is where eval keeps the digest of every result.json it
// wrote, in the results folder: a result is eval's own only if its bytes
// still hash to what eval recorded when the trial ended.
const ManifestFile = "manifest.json"

// manifest is the results folder's record of finished trials: trial
// folder (relative) to the sha256 of its result.json.
type manifest struct {
	path string
	mu   sync.Mutex
	Sums map[string]string `json:"results"`
}

func openManifest(out string) (*manifest, error) {
	m := &manifest{path: filepath.Join(out, ManifestFile), Sums: map[string]string{}}
	b, err := os.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %v", m.path, err)
	}
	if m.Sums == nil {
		m.Sums = map[string]string{}
	}
	return m, nil
}

func digest(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// why says why the trial in dir must run (again): "" when its result is
// the one eval recorded.
func (m *manifest) why(out, dir string) string {
	rel, _ := filepath.Rel(out, dir)
	m.mu.Lock()
	want, ok := m.Sums[filepath.ToSlash(rel)]
	m.mu.Unlock()
	got, err := digest(filepath.Join(dir, "result.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not run"
	case err != nil:
		return err.Error()
	case !ok && interrupted(dir):
		// eval keeps no digest of an interrupted trial's result: it is
		// to run again, and says so
		return "it was interrupted"
	case !ok:
		return "its result.json was not written by this eval"
	case got != want:
		return "its result.json changed after eval wrote it"
	}
	return ""
}

// interrupted says whether dir's result.json is a run stopped by an
// interrupt (swetouch's own reason for it).
func interrupted(dir string) bool {
	r, err := result.Read(filepath.Join(dir, result.File))
	return err == nil && r.Reason == "interrupted"
}

// add records dir's result.json and writes the manifest (whole, by a
// rename, so an interrupted write leaves the old one).
func (m *manifest) add(out, dir string) error {
	sum, err := digest(filepath.Join(dir, "result.json"))
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(out, dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Sums[filepath.ToSlash(rel)] = sum
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := m.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, m.path)
}

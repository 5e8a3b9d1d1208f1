package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScrubbed(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "exe")
	secret := []byte("hidden tests and solutions")
	os.WriteFile(exe, append(append([]byte("head "), append(secret, " middle "...)...), append(secret, " tail"...)...), 0o755)
	cache := filepath.Join(dir, "cache")
	out, err := Scrubbed(exe, cache, secret)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if bytes.Contains(b, secret) || len(b) != 2*len(secret)+len("head  middle  tail") || !bytes.HasPrefix(b, []byte("head ")) {
		t.Fatalf("scrubbed copy %q", b)
	}
	if info, _ := os.Stat(out); info.Mode()&0o111 == 0 {
		t.Fatalf("the copy is not executable: %v", info.Mode())
	}
	// made once: a second call finds it
	os.WriteFile(out, []byte("kept"), 0o755)
	if again, err := Scrubbed(exe, cache, secret); err != nil || again != out {
		t.Fatalf("second call: %s, %v", again, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "kept" {
		t.Fatal("the copy was made again")
	}
	// data the executable does not hold: refused, nothing shown
	if _, err := Scrubbed(exe, cache, []byte("not there")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

// A file Over names is shown as its replacement wherever a bind holds it,
// and the rest of the bind is as it was.
func TestOver(t *testing.T) {
	r := need(t)
	host := t.TempDir()
	tools := filepath.Join(host, "tools")
	os.MkdirAll(tools, 0o755)
	os.WriteFile(filepath.Join(tools, "swetouch"), []byte("with the examples\n"), 0o644)
	os.WriteFile(filepath.Join(tools, "other"), []byte("other\n"), 0o644)
	os.WriteFile(filepath.Join(host, "scrubbed"), []byte("without\n"), 0o644)
	r.Over = map[string]string{filepath.Join(tools, "swetouch"): filepath.Join(host, "scrubbed"), filepath.Join(host, "elsewhere"): filepath.Join(host, "scrubbed")}
	out, err := run(t, r, Spec{ReadOnly: []string{tools}}, "cat "+tools+"/swetouch "+tools+"/other; ls "+host)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(out, "without\nother\n") || strings.Contains(out, "with the examples") {
		t.Fatalf("output %q", out)
	}
}

package eval

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWhyRunAgain: a trial whose result.json says it was interrupted runs
// again as interrupted; a result eval has no digest of is not its own; a
// result changed since eval wrote it is said so. Before, an interrupted
// trial was taken for a result eval never wrote.
func TestWhyRunAgain(t *testing.T) {
	out := t.TempDir()
	man, err := openManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	trial := func(name, result string) string {
		dir := filepath.Join(out, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if result != "" {
			if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(result), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	done := trial("done", `{"task":"t","resolved":true}`)
	if err := man.add(out, done); err != nil {
		t.Fatal(err)
	}
	changed := trial("changed", `{"task":"t","resolved":false}`)
	if err := man.add(out, changed); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(changed, "result.json"), []byte(`{"task":"t","resolved":true}`), 0o644)
	for _, c := range []struct{ dir, want string }{
		{done, ""},
		{trial("interrupted", `{"task":"t","resolved":null,"reason":"interrupted"}`), "it was interrupted"},
		{trial("foreign", `{"task":"t","resolved":true}`), "its result.json was not written by this eval"},
		{changed, "its result.json changed after eval wrote it"},
		{trial("new", ""), "not run"},
	} {
		if got := man.why(out, c.dir); got != c.want {
			t.Errorf("%s: %q, want %q", filepath.Base(c.dir), got, c.want)
		}
	}
}

package redteam

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// TestHonestUnderBuild: a task whose code lives under build/ (a directory
// the watcher takes for artifacts when its files are new) is fixed there
// by a native write; the edit is seen, with its lines, and the trial
// resolves.
func TestHonestUnderBuild(t *testing.T) {
	f := newFixture(t)
	lib := filepath.Join(f.task, "repo", "build", "lib")
	os.MkdirAll(lib, 0o755)
	if err := os.Rename(filepath.Join(f.task, "repo", "pricing.py"), filepath.Join(lib, "pricing.py")); err != nil {
		t.Fatal(err)
	}
	sh := filepath.Join(f.task, "tests", "test.sh")
	b, _ := os.ReadFile(sh)
	os.WriteFile(sh, []byte(strings.Replace(string(b), "python3 -m unittest", "PYTHONPATH=build/lib python3 -m unittest", 1)), 0o755)
	res, out := f.run(t, "vanilla", "python3", "-c", strings.ReplaceAll(fix, `"pricing.py"`, `"build/lib/pricing.py"`))
	if resolved(res) != "true" {
		t.Fatalf("resolved %s, want true\n%s", resolved(res), out)
	}
	if !edited(t, f, "build/lib/pricing.py") {
		t.Errorf("the fix under build/ was never seen as an edit")
	}
}

// TestHonestHardLink: an agent that works through a hard link of the file
// it fixes resolves, and its edit is the file's.
func TestHonestHardLink(t *testing.T) {
	f := newFixture(t)
	script := `bash -c 'ln pricing.py work.py'
python3 -c '` + strings.ReplaceAll(fix, `"pricing.py"`, `"work.py"`) + `'
bash -c 'rm work.py'`
	res, out := f.run(t, "vanilla", "bash", "-c", script)
	if resolved(res) != "true" {
		t.Fatalf("resolved %s, want true\n%s", resolved(res), out)
	}
	if !edited(t, f, "pricing.py") {
		t.Errorf("the edit through the hard link was not pricing.py's")
	}
}

// edited reports whether the trajectory holds an agent's edit with a line
// scope of path.
func edited(t *testing.T, f fixture, path string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		var ev event.Event
		if json.Unmarshal([]byte(l), &ev) != nil || ev.Kind != event.Edit || ev.Actor != event.Agent {
			continue
		}
		for _, sc := range ev.Scopes {
			if sc.Path == path && sc.Precision == event.Line {
				return true
			}
		}
	}
	return false
}

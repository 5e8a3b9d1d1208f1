package score

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// TestReadWithoutTimelines: reading for the figures alone gives each
// trial the same fate and after-counts as reading its whole timeline,
// and no marks; a trajectory the figures skip (no intervention, no
// conversation) costs no read, and one that does not parse leaves the
// trial its result alone either way. Many trials read in parallel come
// back in folder order.
func TestReadWithoutTimelines(t *testing.T) {
	root := t.TempDir()
	traj := `{"format":"swetouch-trajectory","version":1}
{"seq":1,"actor":"agent","kind":"read","step":0,"command":"cat x.py","output":{"text":"\"user\" \u0075"}}
{"seq":2,"actor":"user","kind":"edit","step":0,"diff":"+++ b/x.py\n+kept line\n+gone line\n"}
{"seq":3,"actor":"agent","kind":"edit","step":1,"source":"shell","command":"sed -i 1d x.py"}
{"seq":4,"actor":"agent","kind":"edit","step":1,"source":"watch","scopes":[{"path":"x.py","start":1,"end":1,"precision":"line"}]}
{"seq":5,"actor":"agent","kind":"test","step":2,"command":"pytest"}
`
	cases := []struct {
		name    string
		applied int
		traj    string
	}{
		{"edited", 1, traj},
		{"vanilla", 0, traj}, // its result says no user acted: not read for the figures
		{"torn", 1, traj + `{"seq":6,"actor":"agent"`},
		{"broken", 1, strings.Replace(traj, `"seq":3`, `"seq":1`, 1)},
	}
	for i := range 40 {
		c := cases[i%len(cases)]
		d := filepath.Join(root, c.name, "run-"+string(rune('a'+i)))
		os.MkdirAll(d, 0o755)
		b, _ := json.Marshal(result.Run{Task: c.name, Condition: "counter-edit", AgentName: "a", Applied: c.applied})
		os.WriteFile(filepath.Join(d, "result.json"), b, 0o644)
		os.WriteFile(filepath.Join(d, "trajectory.jsonl"), []byte(c.traj), 0o644)
		os.WriteFile(filepath.Join(d, "final.diff"), []byte("+++ b/x.py\n+kept line\n"), 0o644)
	}
	full, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	figures, err := Read([]string{root}, WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 40 || len(figures) != 40 {
		t.Fatalf("%d and %d trials, want 40", len(full), len(figures))
	}
	for i := range full {
		f, g := full[i], figures[i]
		if i > 0 && f.Dir < full[i-1].Dir {
			t.Errorf("trial %d out of folder order", i)
		}
		if f.Dir != g.Dir || g.Marks != nil {
			t.Errorf("%s: figures-only read %s with %d marks", f.Dir, g.Dir, len(g.Marks))
		}
		want := full[i]
		if strings.Contains(f.Dir, "vanilla") {
			want.Fate, want.After = "", nil // what its result rules out is not read
		}
		if g.Fate != want.Fate || !reflect.DeepEqual(g.After, want.After) {
			t.Errorf("%s: fate %q after %+v, with the timeline %q %+v", f.Dir, g.Fate, g.After, want.Fate, want.After)
		}
		switch {
		case strings.Contains(f.Dir, "/edited/"), strings.Contains(f.Dir, "/torn/"):
			if f.Fate != Replaced || f.After == nil || *f.After != (Counts{Edits: 1, Tests: 1}) || len(f.Marks) != 4 {
				t.Errorf("%s: fate %q after %+v, %d marks", f.Dir, f.Fate, f.After, len(f.Marks))
			}
		case strings.Contains(f.Dir, "/broken/"):
			if f.Fate != "" || f.After != nil || f.Marks != nil {
				t.Errorf("%s: a trajectory out of order was read: %q %+v", f.Dir, f.Fate, f.After)
			}
		}
	}
	bad := filepath.Join(root, "bad", "run-0")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "result.json"), []byte(`{"steps": "four"}`), 0o644)
	if _, err := Read([]string{root}); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, "result.json")) {
		t.Errorf("a result.json that does not parse: %v, want its path", err)
	}
}

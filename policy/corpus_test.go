package policy_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/devdata"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/task"
)

var update = flag.Bool("update", false, "rewrite testdata/simulate-dev.golden")

// TestCorpusSimulateModes replays the 45 dev runs through the policy in
// both match modes. The per-run firings are kept in a golden file (so a
// change in either mode shows up in review); the summary is the figure the
// README quotes.
func TestCorpusSimulateModes(t *testing.T) {
	d := devdata.Shared(t)
	recs, err := task.LoadRecords(filepath.Join(d, "data", "swe-touch-v0.1.2", "swe_bench_verified.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(d, "corpus", "trajectories", "gemini-3-pro_mini-swe-agent-1.15.0", "*.traj.json"))
	if len(files) != 45 {
		t.Fatalf("want the 45 dev runs, found %d", len(files))
	}
	var golden strings.Builder
	type tally struct{ runs, fires, full int }
	sum := map[policy.Match]*tally{policy.Reference: {}, policy.Precise: {}}
	differ, fewer, delayed := 0, 0, 0
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".traj.json")
		rec, err := task.Find(recs, id)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := replay.ImportMiniSWEAgent(data, f, replay.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fired := map[policy.Match][]policy.Firing{}
		for _, m := range []policy.Match{policy.Reference, policy.Precise} {
			p, err := policy.New(rec, policy.WithMatch(m))
			if err != nil {
				t.Fatal(err)
			}
			fs := policy.Simulate(p, tr.Events)
			checkOrder(t, id, fs, len(p.Interventions()))
			fired[m] = fs
			s := sum[m]
			s.fires += len(fs)
			if len(fs) > 0 {
				s.runs++
			}
			if len(fs) == len(p.Interventions()) {
				s.full++
			}
		}
		ref, pre := steps(fired[policy.Reference]), steps(fired[policy.Precise])
		fmt.Fprintf(&golden, "%s\treference %s\tprecise %s\n", id, ref, pre)
		if ref != pre {
			differ++
			if len(fired[policy.Precise]) < len(fired[policy.Reference]) {
				fewer++
			}
			if laterStep(fired[policy.Reference], fired[policy.Precise]) {
				delayed++
			}
		}
	}
	r, p := sum[policy.Reference], sum[policy.Precise]
	t.Logf("45 dev runs, counter-edit: reference fires in %d runs (%d firings, all rounds in %d); precise in %d runs (%d firings, all rounds in %d); %d runs differ: %d fire fewer rounds under precise, %d fire a shared round at a later step",
		r.runs, r.fires, r.full, p.runs, p.fires, p.full, differ, fewer, delayed)
	path := filepath.Join("testdata", "simulate-dev.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != golden.String() {
		t.Errorf("firings changed; review and rerun with -update:\n%s", golden.String())
	}
}

// checkOrder: rounds fire in order, each once, never after step order
// goes backwards.
func checkOrder(t *testing.T, id string, fs []policy.Firing, k int) {
	t.Helper()
	if len(fs) > k {
		t.Errorf("%s: %d firings for %d interventions", id, len(fs), k)
	}
	for i, f := range fs {
		if f.Order != i+1 {
			t.Errorf("%s: firing %d has order %d", id, i, f.Order)
		}
		if i > 0 && f.Step < fs[i-1].Step {
			t.Errorf("%s: round %d fired at step %d before round %d's step %d", id, f.Order, f.Step, i, fs[i-1].Step)
		}
	}
}

// steps renders firings as order@step(event), "-" for none.
func steps(fs []policy.Firing) string {
	if len(fs) == 0 {
		return "-"
	}
	var b []string
	for _, f := range fs {
		b = append(b, fmt.Sprintf("%d@%d(%s)", f.Order, f.Step, f.Event))
	}
	return strings.Join(b, " ")
}

// laterStep reports whether a round both modes fire fires later under b.
func laterStep(a, b []policy.Firing) bool {
	for i := range min(len(a), len(b)) {
		if b[i].Step > a[i].Step {
			return true
		}
	}
	return false
}

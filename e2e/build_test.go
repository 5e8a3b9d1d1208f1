package e2e_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/jsoncheck"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

// TestBuildFromTasks: from the example tasks with their records deleted,
// eval the scripted agents under vanilla, build records from those runs
// with the scripted generator (examples/agents/generate), and eval under
// counter-edit with the built records: the demo's conclusions come back
// (the naive agent fails every task, the careful one resolves every
// one), and the built records load as records do and validate against
// the released dataset-record-v1 schema.
func TestBuildFromTasks(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	swetouch := filepath.Join(bin, "swetouch")
	root := t.TempDir()
	for _, d := range []string{"tasks", "agents"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(examplesDir, d), filepath.Join(root, d)).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(root, "tasks", "*", "records.jsonl"))
	for _, r := range recs {
		os.Remove(r)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(swetouch, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("swetouch %v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	tasks, records := filepath.Join(root, "tasks"), filepath.Join(root, "records.jsonl")
	run("eval", "--tasks", tasks, "--agent", "naive", "--agent", "careful", "--conditions", "vanilla", "--out", filepath.Join(root, "vanilla"))
	// under the released schema's benchmark name, so the records can be
	// checked against it (the examples' own say "local", which it lacks)
	log := run("build", "--tasks", tasks, "--runs", filepath.Join(root, "vanilla"), "--out", records, "--benchmark", "swe_bench_verified",
		"--", swetouch, "agent", "script", "--plan", filepath.Join(root, "agents", "generate", "{task}.json"), "--behaviour", "naive")
	if !bytes.Contains([]byte(log), []byte("3 tasks with validated Counter-Edits, 0 fell back")) {
		t.Fatalf("build:\n%s", log)
	}
	// resumable: a second build adds nothing
	again := run("build", "--tasks", tasks, "--runs", filepath.Join(root, "vanilla"), "--out", records, "--", "/bin/false")
	if !bytes.Contains([]byte(again), []byte("already in")) {
		t.Errorf("a second build:\n%s", again)
	}
	built, err := task.LoadRecords(records)
	if err != nil || len(built) != 3 {
		t.Fatalf("the built records: %d, %v", len(built), err)
	}
	if schema, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "swe-touch-v0.1.2", "dataset-record-v1.schema.json")); err == nil {
		f, _ := os.Open(records)
		defer f.Close()
		for sc := bufio.NewScanner(f); sc.Scan(); {
			jsoncheck.Valid(t, schema, append([]byte(nil), sc.Bytes()...))
		}
	} else {
		testsupport.Degraded(t, testsupport.Corpus, "the released schema is not here (%v): the records are checked by the loader only", err)
	}
	out := filepath.Join(root, "ce")
	run("eval", "--tasks", tasks, "--records", records, "--agent", "naive", "--agent", "careful", "--conditions", "vanilla,counter-edit", "--out", out)
	trials, err := score.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]int{{"naive", "vanilla"}: 3, {"careful", "vanilla"}: 3, {"naive", "counter-edit"}: 0, {"careful", "counter-edit"}: 3}
	for _, r := range score.Summarize(trials) {
		if n, ok := want[[2]string{r.Agent, r.Condition}]; !ok || r.Resolved != n || r.Trials != 3 {
			t.Errorf("%s/%s: %d of %d resolved, want %d of 3", r.Agent, r.Condition, r.Resolved, r.Trials, n)
		}
	}
}

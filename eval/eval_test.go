package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

func TestMain(m *testing.M) { testbin.Main(m, nil) }

// cancelAfter is a progress writer that stops the eval after the first
// finished trial.
type cancelAfter struct {
	mu     sync.Mutex
	cancel func()
	buf    bytes.Buffer
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(p, []byte("resolved=")) && c.cancel != nil {
		c.cancel()
	}
	return c.buf.Write(p)
}

// TestEvalResumes: an eval stopped after its first finished trial keeps
// that trial; run again, it runs only the rest; the scores are the demo's;
// the report of the folder renders in headless Chromium.
func TestEvalResumes(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "swetouch")
	var tasks []*task.Task
	for _, n := range []string{"go-stack", "py-discount", "py-slugify"} {
		tk, err := task.Load(filepath.Join("..", "examples", "tasks", n))
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, tk)
	}
	plans, _ := filepath.Abs(filepath.Join("..", "examples", "agents"))
	agent := func(b string) Agent {
		return Agent{Name: b, Start: func(t *task.Task, scratch, modelURL string) (agents.Invocation, error) {
			return agents.Command([]string{exe, "agent", "script", "--plan", filepath.Join(plans, t.Name+".json"), "--behaviour", b}...), nil
		}}
	}
	out := t.TempDir()
	cfg := Config{
		Tasks: tasks, Agents: []Agent{agent("naive"), agent("careful")}, Conditions: []policy.Condition{policy.Vanilla, policy.CounterEdit},
		Runs: 1, Concurrency: 2, Out: out, Shim: filepath.Join(bin, "swetouch-shim"),
		Records: func(t *task.Task) (*task.Record, error) {
			recs, err := task.LoadRecords(filepath.Join(t.Dir, "records.jsonl"))
			if err != nil {
				return nil, err
			}
			return task.Find(recs, t.Name)
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop := &cancelAfter{cancel: cancel}
	cfg.Progress = stop
	first, _ := Run(ctx, cfg)
	finished, interrupted := 0, 0
	trials, _ := score.Load(out)
	for _, tr := range trials {
		if tr.Result.Reason != "interrupted" {
			finished++
		} else {
			interrupted++
		}
	}
	const all = 12 // 3 tasks × 2 conditions × 2 agents
	if finished < 1 || finished >= all {
		t.Fatalf("after the stop: %d finished (ran %d)\n%s", finished, first, stop.buf.String())
	}
	var rerun strings.Builder
	cfg.Progress = &rerun
	again, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// an interrupted trial runs again, said so: not taken for a result
	// eval never wrote (whether one was caught mid-run depends on the
	// timing; TestWhyRunAgain checks the words)
	t.Logf("%d trials interrupted", interrupted)
	if n := strings.Count(rerun.String(), ": it was interrupted"); n != interrupted || strings.Contains(rerun.String(), "not written by this eval") {
		t.Errorf("%d trials were interrupted; the second eval said:\n%s", interrupted, rerun.String())
	}
	if again != all-finished {
		t.Errorf("the second eval ran %d trials, want the %d left", again, all-finished)
	}
	trials, _ = score.Load(out)
	if len(trials) != all {
		t.Fatalf("%d trials on disk, want %d", len(trials), all)
	}
	var table strings.Builder
	rows := score.Summarize(trials)
	score.WriteTable(&table, rows)
	for _, r := range rows {
		want := 3
		if r.Agent == "naive" && r.Condition == "counter-edit" {
			want = 0
		}
		if r.Resolved != want || r.Trials != 3 {
			t.Errorf("%s/%s: %d of %d resolved, want %d\n%s", r.Agent, r.Condition, r.Resolved, r.Trials, want, table.String())
		}
	}
	t.Logf("eval table:\n%s", table.String())
	rep := report.New("eval of the example tasks", out, trials)
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
	applied := 0
	for _, tr := range rep.Trials {
		for _, m := range tr.Marks {
			if m.Kind == event.Intervention && m.Outcome == "applied" {
				applied++
			}
		}
	}
	if applied != 6 {
		t.Errorf("%d applied interventions on the timelines, want one per counter-edit trial (6)", applied)
	}
	// the report of an eval's folder (report's own tests check it in a
	// browser)
	if b, err := os.ReadFile(filepath.Join(out, report.HTMLFile)); err != nil || !strings.Contains(string(b), "Rank changes") || !strings.Contains(string(b), "✗ failed") {
		t.Errorf("report.html: %v", err)
	}
}

func TestBar(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		want        string
	}{
		{0, 4, "[..............................] 0/4   0% eta 3s"},
		{1, 3, "[##########....................] 1/3  33% eta 3s"},
		{4, 4, "[##############################] 4/4 100% eta 3s"},
		{0, 0, "[..............................] 0/0   0% eta 3s"},
	} {
		if got := bar(tc.done, tc.total, 3*time.Second); got != tc.want {
			t.Errorf("bar(%d, %d) = %q, want %q", tc.done, tc.total, got, tc.want)
		}
	}
}

// TestEvalFractionSchedule: under --schedule fraction each trial's step
// count S is its paired vanilla run's: the vanilla trials run first, and
// the Counter-Edit lands at the first step ≥ ⌈i·S/(K+1)⌉ whatever the
// agent reads.
func TestEvalFractionSchedule(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "swetouch")
	tk, err := task.Load(filepath.Join("..", "examples", "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := task.LoadRecords(filepath.Join(tk.Dir, "records.jsonl"))
	plans, _ := filepath.Abs(filepath.Join("..", "examples", "agents"))
	careful := Agent{Name: "careful", Start: func(t *task.Task, scratch, modelURL string) (agents.Invocation, error) {
		return agents.Command([]string{exe, "agent", "script", "--plan", filepath.Join(plans, t.Name+".json"), "--behaviour", "careful"}...), nil
	}}
	out := t.TempDir()
	cfg := Config{Tasks: []*task.Task{tk}, Agents: []Agent{careful}, Conditions: []policy.Condition{policy.CounterEdit, policy.Vanilla},
		Runs: 1, Concurrency: 2, Out: out, Shim: filepath.Join(bin, "swetouch-shim"), Schedule: policy.Schedule{Kind: "fraction", Steps: 1},
		Records: func(*task.Task) (*task.Record, error) { return recs[0], nil }}
	if n, err := Run(context.Background(), cfg); err != nil || n != 2 {
		t.Fatalf("ran %d: %v", n, err)
	}
	trials, err := score.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var van, ce *score.Trial
	for i := range trials {
		if trials[i].Result.Condition == "vanilla" {
			van = &trials[i]
		} else {
			ce = &trials[i]
		}
	}
	s := van.Result.Steps
	k := len(recs[0].CounterEdit.Interventions)
	if ce.Result.Schedule != fmt.Sprintf("fraction %d", s) || van.Result.Schedule != "" {
		t.Fatalf("schedules %q and %q, want fraction %d", ce.Result.Schedule, van.Result.Schedule, s)
	}
	due := (s + k) / (k + 1) // ⌈1·S/(K+1)⌉
	tr, err := trajectory.ReadFile(filepath.Join(ce.Dir, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range tr.Events {
		if ev.Kind == event.Intervention && ev.Attempt.Outcome == "applied" {
			if *ev.Step != due {
				t.Errorf("round 1 at step %d (%s), want step %d = ⌈%d/%d⌉", *ev.Step, ev.Attempt.Why, due, s, k+1)
			}
			return
		}
	}
	t.Errorf("no Counter-Edit landed")
}

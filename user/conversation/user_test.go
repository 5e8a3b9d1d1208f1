package conversation_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user/conversation"
)

// cascade is testdata/cascade.json, its budget replaced when budget is
// given.
func cascade(t *testing.T, budget string) *conversation.Package {
	t.Helper()
	src, _ := os.ReadFile(filepath.Join("testdata", "cascade.json"))
	if budget != "" {
		src = []byte(strings.Replace(string(src), `"budget": 8`, budget, 1))
	}
	path := filepath.Join(t.TempDir(), "conversation.json")
	os.WriteFile(path, src, 0o644)
	pkg, err := conversation.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// TestConversation: a cascade of two phases through the hub, turn by
// turn: the agent's question is answered from the pool, a partial fix
// gets the symptom still failing, the first phase's pass raises the
// second issue, and the second's pass ends the conversation, resolved at
// turn 4 after 3.5 weighted turns (the first changed no code).
func TestConversation(t *testing.T) {
	pkg := cascade(t, "")
	chain := conversation.DefaultModel().Chain(*pkg.Persona.Seed, pkg.Budget)
	pass := map[string]string{"test_percent": "pass", "test_range": "pass", "test_bulk": "pass", "test_total": "pass"}
	results := []map[string]string{
		{"test_percent": "fail", "test_range": "fail", "test_bulk": "fail", "test_total": "pass"},
		{"test_percent": "pass", "test_range": "fail", "test_bulk": "fail", "test_total": "pass"},
		{"test_percent": "pass", "test_range": "pass", "test_bulk": "fail", "test_total": "pass"},
		pass,
	}
	turn := 0
	tests := func(context.Context) (map[string]string, error) { r := results[turn]; turn++; return r, nil }
	u := conversation.NewUser(pkg, chain, tests)
	h, err := session.New(t.TempDir(), session.WithUser(u))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	agent := func(reply string, edits bool) {
		if edits {
			h.Observe(ctx, event.Event{Kind: event.Edit, Actor: event.Agent, Scopes: []event.Scope{event.FileScope("pricing.py")}})
		}
		h.Observe(ctx, event.Event{Kind: event.Message, Actor: event.Agent, Text: reply})
	}
	if u.Opening() != pkg.Opening {
		t.Fatalf("opening %q", u.Opening())
	}
	agent("Which Python version do you run?", false)
	msgs, end, _ := h.TurnEnd(ctx)
	if end || len(msgs) != 1 || !strings.Contains(msgs[0].Text, "We run Python 3.12") {
		t.Fatalf("turn 1: %v end %v", msgs, end)
	}
	agent("I fixed the percent.", true)
	msgs, end, _ = h.TurnEnd(ctx)
	if end || len(msgs) != 1 || !strings.Contains(msgs[0].Text, "A discount of 150 percent is accepted") {
		t.Fatalf("turn 2: %v end %v", msgs, end)
	}
	agent("Now out-of-range percents raise.", true)
	msgs, end, _ = h.TurnEnd(ctx)
	if end || len(msgs) != 1 || msgs[0].Text != "Now the bulk discount is off too." {
		t.Fatalf("turn 3: %v end %v", msgs, end)
	}
	agent("Bulk discounts are back.", true)
	if msgs, end, _ = h.TurnEnd(ctx); !end || len(msgs) != 0 {
		t.Fatalf("turn 4: %v end %v", msgs, end)
	}
	turns := u.Turns()
	var verdicts []string
	for _, tr := range turns {
		verdicts = append(verdicts, tr.Verdict)
	}
	if r := u.ResolvedTurn(); r == nil || *r != 4 || u.WeightedTurns() != 3.5 || !slices.Equal(verdicts, []string{"ongoing", "ongoing", "ongoing", "resolved"}) {
		t.Errorf("resolved at %v, %v weighted turns, verdicts %v", u.ResolvedTurn(), u.WeightedTurns(), verdicts)
	}
	if turns[0].Persona != chain[0] || turns[1].Persona != chain[1] || turns[0].AgentReply != "Which Python version do you run?" || turns[0].Edited || !turns[1].Edited {
		t.Errorf("turn records %+v", turns[:2])
	}
	// a second agent on the task meets the same user
	if again := conversation.DefaultModel().Chain(*pkg.Persona.Seed, pkg.Budget); !slices.Equal(again, chain) {
		t.Errorf("chains %v and %v", chain, again)
	}
}

// TestBudgetEnds: a conversation whose tests never pass ends when its
// budget is spent, unresolved.
func TestBudgetEnds(t *testing.T) {
	pkg := cascade(t, `"budget": 2`)
	fail := func(context.Context) (map[string]string, error) { return map[string]string{}, nil }
	u := conversation.NewUser(pkg, []string{"vague/none"}, fail)
	h, _ := session.New(t.TempDir(), session.WithUser(u))
	if _, end, _ := h.TurnEnd(context.Background()); end {
		t.Fatal("ended after one turn of two")
	}
	if _, end, _ := h.TurnEnd(context.Background()); !end || u.ResolvedTurn() != nil || u.Turns()[1].Verdict != "unresolved" {
		t.Errorf("end %v, resolved %v, %+v", end, u.ResolvedTurn(), u.Turns())
	}
}

// TestTaskTester: the tester runs the task's test.sh for the package's
// acceptance and regression ids and returns what it wrote; a test.sh
// that writes no per-test results is an error, not a pass.
func TestTaskTester(t *testing.T) {
	pkg := cascade(t, "")
	dir := t.TempDir()
	repo, tests := filepath.Join(dir, "repo"), filepath.Join(dir, "tests")
	os.MkdirAll(repo, 0o755)
	os.MkdirAll(tests, 0o755)
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte(`out="{"; sep=""
for id in $SWETOUCH_TESTS; do out="$out$sep\"$id\": \"pass\""; sep=", "; done
echo "$out}" > "$SWETOUCH_RESULTS"
`), 0o755)
	tk := &task.Task{Name: "tiny", Dir: dir, Repo: repo, Tests: tests, Timeout: time.Minute}
	got, err := conversation.TaskTester(pkg, tk, repo)(context.Background())
	if err != nil || len(got) != 4 || got["test_bulk"] != "pass" || got["test_total"] != "pass" {
		t.Errorf("results %v, %v", got, err)
	}
	// a test.sh that wrote no results (the agent's code, running in the
	// tests' process, can exit it early) errs every test: a failure of
	// the agent's, never a pass and never no verdict
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte("exit 0\n"), 0o755)
	got, err = conversation.TaskTester(pkg, tk, repo)(context.Background())
	if err != nil || len(got) != 4 || got["test_percent"] != "error" {
		t.Errorf("a test.sh without per-test results: %v, %v", got, err)
	}
}

// TestCascadeBreaksFirstPhase (issue 50): turn 1 fixes the first phase,
// turn 2 fixes the second while breaking the first. The turn resolves
// nothing: every raised phase's acceptance tests must pass, so the
// conversation goes on, the user speaks of the first issue again, and a
// third turn that restores it resolves. Before, turn 2 was "resolved".
func TestCascadeBreaksFirstPhase(t *testing.T) {
	pkg := cascade(t, "")
	results := []map[string]string{
		{"test_percent": "pass", "test_range": "pass", "test_bulk": "fail", "test_total": "pass"},
		{"test_percent": "fail", "test_range": "pass", "test_bulk": "pass", "test_total": "pass"},
		{"test_percent": "pass", "test_range": "pass", "test_bulk": "pass", "test_total": "pass"},
	}
	turn := 0
	tests := func(context.Context) (map[string]string, error) { r := results[turn]; turn++; return r, nil }
	u := conversation.NewUser(pkg, []string{"precise/none"}, tests)
	h, err := session.New(t.TempDir(), session.WithUser(u))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	edit := func() {
		h.Observe(ctx, event.Event{Kind: event.Edit, Actor: event.Agent, Scopes: []event.Scope{event.FileScope("pricing.py")}})
	}
	edit()
	if msgs, end, _ := h.TurnEnd(ctx); end || len(msgs) != 1 || msgs[0].Text != "Now the bulk discount is off too." {
		t.Fatalf("turn 1: %v end %v", msgs, end)
	}
	edit()
	msgs, end, _ := h.TurnEnd(ctx)
	if end {
		t.Fatalf("turn 2 ended the conversation (%+v) with the first phase broken", u.Turns()[1])
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "apply_discount(200, 10) returns 190") {
		t.Errorf("turn 2's answer does not speak of the broken first issue: %v", msgs)
	}
	edit()
	if _, end, _ := h.TurnEnd(ctx); !end {
		t.Fatal("turn 3 did not end it")
	}
	var verdicts []string
	for _, tr := range u.Turns() {
		verdicts = append(verdicts, tr.Verdict)
	}
	if r := u.ResolvedTurn(); r == nil || *r != 3 || !slices.Equal(verdicts, []string{"ongoing", "ongoing", "resolved"}) {
		t.Errorf("resolved at %v, verdicts %v", u.ResolvedTurn(), verdicts)
	}
}

// TestListedIDs (issue 50): the tests test.sh lists when asked for all
// of them check the package's ids at load; an id it does not list is
// refused, naming the file and the field. A test.sh that lists nothing
// leaves the ids unchecked.
func TestListedIDs(t *testing.T) {
	dir := t.TempDir()
	repo, tests := filepath.Join(dir, "repo"), filepath.Join(dir, "tests")
	os.MkdirAll(repo, 0o755)
	os.MkdirAll(tests, 0o755)
	src, _ := os.ReadFile(filepath.Join("testdata", "cascade.json"))
	os.WriteFile(filepath.Join(dir, conversation.File), []byte(strings.Replace(string(src), `"test_bulk"]}`, `"test_blk"]}`, 1)), 0o644)
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte(`[ -z "$SWETOUCH_TESTS" ] || exit 3
echo '{"test_percent": "fail", "test_range": "fail", "test_bulk": "fail", "test_total": "pass"}' > "$SWETOUCH_RESULTS"
`), 0o755)
	tk := &task.Task{Name: "tiny", Dir: dir, Repo: repo, Tests: tests, Timeout: time.Minute}
	ids := conversation.ListTests(context.Background(), tk)
	if !slices.Equal(ids, []string{"test_bulk", "test_percent", "test_range", "test_total"}) {
		t.Fatalf("listed %v", ids)
	}
	_, err := conversation.LoadTask(tk, nil, conversation.WithTestIDs(ids))
	if err == nil || !strings.Contains(err.Error(), `conversation.json: field phases[1].acceptance[0]: no test "test_blk"`) {
		t.Errorf("a typo'd id: %v", err)
	}
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte("exit 0\n"), 0o755)
	if ids := conversation.ListTests(context.Background(), tk); ids != nil {
		t.Errorf("a test.sh without per-test results listed %v", ids)
	}
}

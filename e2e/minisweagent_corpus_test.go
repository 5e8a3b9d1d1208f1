package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/trajectory"
)

// corpusRoot is where the corpus's runs worked: SWE-bench's container
// checkout. The live run's workspace is the agent's working directory,
// so the script says "." where the recording said /testbed.
const corpusRoot = "/testbed"

// TestMiniSWECorpusLive re-drives a dev-corpus run of mini-swe-agent 2.2.4
// (gpt-5-mini on sympy__sympy-22456, v2 tool calls) live: the real
// mini-swe-agent, sandboxed under swetouch run (vanilla, as the recording
// ran), its base files from the sympy mirror, against a model script made
// from the recorded trajectory. The live trajectory's steps (one per
// recorded command, in order), each step's
// read scopes, and where the instance's SWE-Touch Counter-Edits trigger
// (the policy run over each trajectory) equal the imported recording's.
//
// Not played: the recording's model replies that held no tool call (mini
// kept only its format error, as a user message with no assistant message
// before it): they ran nothing, and the scripted server cannot tell a
// reply mini rejected from one it kept, since the history holds neither.
// Not compared: the read scopes of a step whose recorded output mini
// elided (over 10,000 characters: head and tail kept), since which lines
// fall in the kept part depends on the order grep -R walks directories,
// the filesystem's; and of the submission, whose reads the import does
// not keep (its output is the submitted diff). Merged into its command's
// step: a command's edits swetouch took while it still ran (past run's
// commandHold, 2 s: here the python that patches ast.py, then imports
// sympy), a step of their own live, which the recording cannot show (and
// at which the policy would fire a round of its own).
func TestMiniSWECorpusLive(t *testing.T) {
	testsupport.Slow(t)
	if _, _, err := agents.Find("mini-swe-agent"); err != nil {
		testsupport.Missing(t, testsupport.Agents, "mini-swe-agent is not installed (scripts/install-agents.sh): %v", err)
	}
	const id = "sympy__sympy-22456"
	shared := devdata.Shared(t)
	trajFile := filepath.Join(shared, "corpus", "trajectories", "gpt-5-mini_mini-swe-agent-2.2.4", id+".traj.json")
	data, err := os.ReadFile(trajFile)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := replay.ImportMiniSWEAgent(data, trajFile, replay.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := corpusScript(t, data)
	mirror := devdata.Mirror(t, devdata.RepoOf(id))
	dir := t.TempDir()
	if _, err := devdata.Checkout(mirror, corpusBase(t, shared, id), filepath.Join(dir, "repo")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "tests"), 0o755)
	os.WriteFile(filepath.Join(dir, "tests", "test.sh"), []byte("true\n"), 0o644)
	taskFile := filepath.Join(dir, "task.json")
	b, _ := json.Marshal(map[string]any{"name": id, "instruction": "Re-drive the recorded run.", "repo": "repo", "tests": "tests", "timeout_sec": 600})
	os.WriteFile(taskFile, b, 0o644)

	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// a step budget past the script's turns: a run that does not submit
	// ends rather than asking on
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "run", "--task", taskFile, "--condition", "vanilla",
		"--agent", "mini-swe-agent", "--model-url", ts.URL, "--step-limit", fmt.Sprint(len(s.Turns)+3), "--out", out)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, tail(string(got), 3000))
	}
	if srv.Turns() != len(s.Turns) {
		t.Fatalf("the agent took %d of the script's %d turns\n%s", srv.Turns(), len(s.Turns), tail(string(got), 3000))
	}
	live, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	live, merged := mergeHeld(live)
	compared := compareLive(t, recorded, live)

	// the record's triggers, the policy run over each
	recs, err := task.LoadRecords(filepath.Join(shared, "data", "swe-touch-v0.1.2", "swe_bench_verified.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := task.Find(recs, id)
	if err != nil {
		t.Fatal(err)
	}
	want, have := triggers(t, rec, recorded), triggers(t, rec, live)
	if len(want) == 0 {
		t.Fatalf("the record's Counter-Edits trigger nowhere in the recording: nothing to compare")
	}
	if !slices.Equal(have, want) {
		t.Errorf("triggers live %q, recorded %q", have, want)
	}
	t.Logf("%s: %d recorded steps re-driven live (%d held edits merged into their command); read scopes of %d compared; triggers %q",
		id, len(replay.Actions(recorded)), merged, compared, have)
}

// corpusScript is the model script of a recorded v2 run: each assistant
// message a turn, its text and its tool calls' commands as @shell calls,
// with the recording's root as the working directory.
func corpusScript(t *testing.T, data []byte) *modelserver.Script {
	t.Helper()
	var f struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var turns []modelserver.Turn
	for _, m := range f.Messages {
		if m.Role != "assistant" {
			continue
		}
		var turn modelserver.Turn
		json.Unmarshal(m.Content, &turn.Text)
		for _, c := range m.ToolCalls {
			var a struct {
				Command string `json:"command"`
			}
			if err := json.Unmarshal([]byte(c.Function.Arguments), &a); err != nil {
				t.Fatalf("a recorded tool call's arguments: %v", err)
			}
			args, _ := json.Marshal(map[string]string{"command": atRoot(a.Command)})
			turn.Calls = append(turn.Calls, modelserver.Call{Name: "@shell", Args: args})
		}
		turns = append(turns, turn)
	}
	b, _ := json.Marshal(modelserver.Script{Turns: turns})
	s, err := modelserver.ParseScript(b, "corpus script")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// atRoot is a recorded command with the recording's root as the
// working directory.
func atRoot(command string) string {
	return strings.ReplaceAll(command, corpusRoot, ".")
}

// corpusBase is the instance's base commit: SWE-bench's own where the
// corpus found it equivalent, else the corpus's best estimate.
func corpusBase(t *testing.T, shared, id string) string {
	t.Helper()
	var resolution struct {
		Instances map[string]struct {
			Best string `json:"best_estimate_base_commit"`
		} `json:"instances"`
	}
	var validation struct {
		Instances map[string]struct {
			Official   string `json:"official_base_commit"`
			Equivalent bool   `json:"official_base_content_equivalent"`
		} `json:"instances"`
	}
	for f, v := range map[string]any{"base_resolution.json": &resolution, "base_validation.json": &validation} {
		b, err := os.ReadFile(filepath.Join(shared, "corpus", "derived", f))
		if err != nil || json.Unmarshal(b, v) != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if v := validation.Instances[id]; v.Equivalent && v.Official != "" {
		return v.Official
	}
	return resolution.Instances[id].Best
}

// compareLive holds the live run's actions to the recording's: one for
// one, the same command (at the recording's root), and the same read
// scopes where the recording kept them whole. It
// returns how many steps' scopes it compared.
func compareLive(t *testing.T, recorded, live *trajectory.Trajectory) int {
	t.Helper()
	ra, la := replay.Actions(recorded), replay.Actions(live)
	if len(ra) != len(la) {
		var cmds []string
		for _, a := range la {
			cmds = append(cmds, fmt.Sprintf("%d %s", a.Step, clipped(a.Command)))
		}
		t.Fatalf("%d recorded steps, %d live:\n%s", len(ra), len(la), strings.Join(cmds, "\n"))
	}
	compared := 0
	for i := range ra {
		r, l := ra[i], la[i]
		if want := atRoot(r.Command); l.Command != want {
			t.Errorf("step %d: live command %q, recorded %q", i+1, l.Command, want)
			continue
		}
		if elidedOrSubmitted(r) {
			continue
		}
		compared++
		if want, have := readScopes(r), readScopes(l); want != have {
			t.Errorf("step %d (%s): live reads %q, recorded %q", i+1, clipped(r.Command), have, want)
		}
	}
	return compared
}

// elidedOrSubmitted: the recording kept part of the action's output
// (mini elided its middle), or the action is the submission, whose reads
// an import does not keep.
func elidedOrSubmitted(a replay.Action) bool {
	return slices.ContainsFunc(a.Recorded, func(ev event.Event) bool {
		return ev.Output != nil && ev.Output.Elided || ev.Kind == event.Session && ev.Note == "submitted"
	})
}

// readScopes are the scopes an action's command was classified as
// reading.
func readScopes(a replay.Action) string {
	var parts []string
	for _, ev := range a.Recorded {
		if ev.Kind != event.Read || ev.Source == "watch" {
			continue
		}
		for _, sc := range ev.Scopes {
			parts = append(parts, sc.String())
		}
	}
	return strings.Join(parts, " ")
}

// triggers are where the record's Counter-Edits trigger in a run: the
// policy run over its events, each firing as the index of the action it
// fires at, its round and its kind.
func triggers(t *testing.T, rec *task.Record, tr *trajectory.Trajectory) []string {
	t.Helper()
	p, err := policy.New(rec)
	if err != nil {
		t.Fatal(err)
	}
	actions := replay.Actions(tr)
	var out []string
	for _, f := range policy.Simulate(p, tr.Events) {
		i := slices.IndexFunc(actions, func(a replay.Action) bool { return a.Step == f.Step })
		out = append(out, fmt.Sprintf("round %d at step %d (%s %s:%d-%d)", f.Order, i+1, f.Event, f.Path, f.Start, f.End))
	}
	return out
}

// mergeHeld is a run with the edits swetouch took while a command still
// ran (run's commandHold) moved to the command's own step, which follows
// them: one model action, as mini recorded it. It returns the run and
// how many steps it merged.
func mergeHeld(tr *trajectory.Trajectory) (*trajectory.Trajectory, int) {
	out := *tr
	out.Events = slices.Clone(tr.Events)
	actions := replay.Actions(tr)
	merged := 0
	for i, a := range actions {
		if !held(a) || i+1 >= len(actions) || actions[i+1].Command != a.Recorded[0].Command {
			continue
		}
		merged++
		next := actions[i+1].Step
		for k := range out.Events {
			if ev := &out.Events[k]; ev.Step != nil && *ev.Step == a.Step {
				ev.Step = &next
			}
		}
	}
	return &out, merged
}

// held: every event of the action is an edit taken while its command ran.
func held(a replay.Action) bool {
	return !slices.ContainsFunc(a.Recorded, func(ev event.Event) bool { return !strings.HasPrefix(ev.Note, "taken while") })
}

func clipped(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

package score

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/result"
)

// indexTree writes trials of every kind the figures tell apart: a user's
// edit with its fate, a vanilla trial, a torn and a broken trajectory, a
// null verdict and a conversation; every file and folder an hour old,
// so none is too recent for the index to trust.
func indexTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	traj := `{"format":"swetouch-trajectory","version":1}
{"seq":1,"actor":"agent","kind":"read","step":0,"command":"cat x.py"}
{"seq":2,"actor":"user","kind":"edit","step":0,"diff":"+++ b/x.py\n+kept line\n+gone line\n"}
{"seq":3,"actor":"agent","kind":"edit","step":1,"source":"shell","command":"sed -i 1d x.py"}
{"seq":4,"actor":"agent","kind":"test","step":2,"command":"pytest"}
`
	yes, no := true, false
	turn := 2
	for i := range 24 {
		kind := []string{"edited", "vanilla", "torn", "broken", "null", "talk"}[i%6]
		r := result.Run{Task: fmt.Sprintf("%s-%d", kind, i%4), Condition: "counter-edit", AgentName: []string{"a", "b"}[i%2],
			Applied: 1, Resolved: &yes, Steps: i, Sandbox: "bwrap", Agent: []string{"agent", "--flag"},
			Timings: result.Timings{Total: 1.5}, Audit: &result.Audit{}}
		tj := traj
		switch kind {
		case "vanilla":
			r.Condition, r.Applied, r.Resolved = "vanilla", 0, &no
		case "torn":
			tj += `{"seq":6,"actor":"agent"`
		case "broken":
			tj = strings.Replace(traj, `"seq":3`, `"seq":1`, 1)
		case "null":
			r.Resolved, r.Reason = nil, "agent could not start"
		case "talk":
			r.Applied = 0
			r.Conversation = &result.Conversation{Budget: 3, ResolvedTurn: &turn, WeightedTurns: 1.5,
				Turns: []result.Turn{{Turn: 1, Weight: 0.5}, {Turn: 2, Weight: 1}}}
		}
		d := filepath.Join(root, r.AgentName, r.Condition, r.Task, fmt.Sprintf("run-%d", i))
		os.MkdirAll(d, 0o755)
		b, _ := json.MarshalIndent(r, "", "  ")
		os.WriteFile(filepath.Join(d, "result.json"), b, 0o644)
		os.WriteFile(filepath.Join(d, "trajectory.jsonl"), []byte(tj), 0o644)
		os.WriteFile(filepath.Join(d, "final.diff"), []byte("+++ b/x.py\n+kept line\n"), 0o644)
	}
	age(t, root)
	return root
}

// age sets every file's and folder's times under root an hour back.
func age(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	var paths []string
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		paths = append(paths, p)
		return err
	})
	slices.Reverse(paths) // a folder after what is in it
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// differ says where got and want part ("" where they do not).
func differ(got, want []Trial) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d trials, want %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("trial %d:\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
	return ""
}

// summarized are the trials as the index gives them back.
func summarized(trials []Trial) []Trial {
	out := slices.Clone(trials)
	for i := range out {
		out[i].Result = Summary(out[i].Result)
	}
	return out
}

// anySize indexes a folder of any number of trials.
func anySize(o *readOptions) { o.indexFrom = 0 }

func readOrFail(t *testing.T, root string, opts ...ReadOption) []Trial {
	t.Helper()
	trials, err := Read([]string{root}, append(opts, anySize)...)
	if err != nil {
		t.Fatal(err)
	}
	return trials
}

// TestIndexReadsTheSame: reading through the index, when it is written
// and when it is read, gives the trials reading every file gives (for
// the figures and with the timelines), and what changed since the index
// was written is read again: an edited result, a new trial, a trial
// removed, a result written too recently to trust.
func TestIndexReadsTheSame(t *testing.T) {
	root := indexTree(t)
	figures, timelines := summarized(readOrFail(t, root)), summarized(readOrFail(t, root, WithTimelines()))
	for pass := range 2 { // the first writes the index, the second reads it
		if d := differ(readOrFail(t, root, WithIndex()), figures); d != "" {
			t.Fatalf("pass %d: through the index: %s", pass, d)
		}
		if d := differ(readOrFail(t, root, WithIndex(), WithTimelines()), timelines); d != "" {
			t.Fatalf("pass %d: with timelines through the index: %s", pass, d)
		}
		for _, f := range []string{IndexFile, TimelinesFile} {
			if _, err := os.Stat(filepath.Join(root, f)); err != nil {
				t.Fatalf("pass %d: no %s written: %v", pass, f, err)
			}
		}
	}

	// a trajectory changed since is read again for its timeline
	traj := filepath.Join(timelines[0].Dir, trajectoryFile)
	b, _ := os.ReadFile(traj)
	os.WriteFile(traj, []byte(strings.Replace(string(b), "cat x.py", "cat y.py", 1)), 0o644)
	if got := readOrFail(t, root, WithIndex(), WithTimelines()); got[0].Marks[0].Label != "cat y.py" {
		t.Errorf("a trajectory changed since the timelines were kept: mark %q, want cat y.py", got[0].Marks[0].Label)
	}
	os.WriteFile(traj, b, 0o644)
	age(t, root)
	readOrFail(t, root, WithIndex()) // the index written anew: every time changed

	// the index is what was read: a result rewritten to the same size
	// and time in the same file is not seen (the trust the index asks)
	trial := figures[0].Dir
	res := filepath.Join(trial, "result.json")
	b, _ = os.ReadFile(res)
	fi, _ := os.Stat(res)
	swapped := strings.Replace(string(b), `"agent_name": "a"`, `"agent_name": "z"`, 1)
	os.WriteFile(res, []byte(swapped), 0o644)
	os.Chtimes(res, fi.ModTime(), fi.ModTime())
	if got := readOrFail(t, root, WithIndex()); got[0].Result.AgentName != "a" {
		t.Fatalf("the index was not read: agent %q", got[0].Result.AgentName)
	}
	// once its time changes, it is read again
	os.Chtimes(res, fi.ModTime().Add(time.Second), fi.ModTime().Add(time.Second))
	if got := readOrFail(t, root, WithIndex()); got[0].Result.AgentName != "z" {
		t.Errorf("a result changed since the index: agent %q, want z", got[0].Result.AgentName)
	}

	// a new trial, a removed one, and one written just now (its time too
	// close to the index's to trust) rewritten in place within its second
	added := filepath.Join(root, "c", "vanilla", "new-task", "run-0")
	os.MkdirAll(added, 0o755)
	os.WriteFile(filepath.Join(added, "result.json"), []byte(`{"task":"new-task","condition":"vanilla","agent_name":"c","resolved":true}`), 0o644)
	os.RemoveAll(figures[1].Dir)
	if err := os.WriteFile(res, []byte(strings.Replace(swapped, `"agent_name": "z"`, `"agent_name": "y"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	now := readOrFail(t, root, WithIndex())
	if err := os.WriteFile(res, []byte(strings.Replace(swapped, `"agent_name": "z"`, `"agent_name": "x"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, _ := os.Stat(res)
	os.Chtimes(res, fresh.ModTime(), fresh.ModTime())
	got := readOrFail(t, root, WithIndex())
	want := summarized(readOrFail(t, root))
	if d := differ(got, want); d != "" || len(got) != len(figures) || len(now) != len(figures) {
		t.Errorf("after a trial added, one removed and one rewritten: %d trials (%d before), %s", len(got), len(now), d)
	}
	if got[0].Result.AgentName != "x" {
		t.Errorf("a result written within the index's second: agent %q, want x", got[0].Result.AgentName)
	}
}

// TestIndexSmallFolders: a folder of fewer than IndexFrom trials is
// given no index.
func TestIndexSmallFolders(t *testing.T) {
	root := indexTree(t)
	if _, err := Read([]string{root}, WithIndex(), WithTimelines()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{IndexFile, TimelinesFile} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s written for 24 trials", f)
		}
	}
}

// TestIndexIgnoresADamagedOne: an index that does not parse, of another
// version, or empty, is no index: every trial is read and it is written
// anew.
func TestIndexIgnoresADamagedOne(t *testing.T) {
	root := indexTree(t)
	want := summarized(readOrFail(t, root))
	for _, bad := range []string{"", "{", `{"format":"swetouch-score-index","version":99}` + "\n", `{"format":"swetouch-score-index","version":1}` + "\n{\"dir\":3}\n"} {
		os.WriteFile(filepath.Join(root, IndexFile), []byte(bad), 0o644)
		if d := differ(readOrFail(t, root, WithIndex()), want); d != "" {
			t.Errorf("index %q: %s", bad, d)
		}
		if b, _ := os.ReadFile(filepath.Join(root, IndexFile)); string(b) == bad {
			t.Errorf("index %q: not written anew", bad)
		}
	}
}

// TestSummaryIsWhatScoreReads: the figures of trials whose every result
// field is set are the same from their Summary, so the index, which
// holds only the Summary, gives the same figures. A field Summary gains
// or loses changes what an index holds: indexVersion must change with
// summaryFields.
func TestSummaryIsWhatScoreReads(t *testing.T) {
	var trials []Trial
	for i := range 12 {
		var r result.Run
		fill(reflect.ValueOf(&r).Elem(), i)
		ok := i%3 != 0
		r.Task, r.AgentName, r.Condition, r.Resolved = fmt.Sprintf("t%d", i%4), []string{"a", "b"}[i%2], []string{"vanilla", "counter-edit"}[i/2%2], &ok
		if i%5 == 0 {
			r.Resolved = nil
		}
		if i%3 == 0 {
			r.Conversation = nil
		}
		trials = append(trials, Trial{Dir: fmt.Sprintf("r/%d", i), Result: r, Fate: Retained, After: &Counts{Reads: 1}})
	}
	figures := func(ts []Trial) string {
		b, err := json.Marshal([]any{Summarize(ts), TurnRows(ts), Comparisons(ts), Costs(ts), Audits(ts), InfraErrors(ts), PaperRows(ts), UserSWERows(ts)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := figures(trials), figures(summarized(trials)); a != b {
		t.Errorf("the figures of the whole results and of their Summary differ:\n%s\n%s", a, b)
	}
	var r result.Run
	fill(reflect.ValueOf(&r).Elem(), 1)
	b, _ := json.Marshal(Summary(r))
	var kept map[string]any
	json.Unmarshal(b, &kept)
	var have []string
	for k, v := range kept {
		if zero(v) {
			continue
		}
		{
			have = append(have, k)
		}
	}
	slices.Sort(have)
	summaryFields := []string{"agent_name", "audit", "budget", "condition", "messages_delivered", "messages_unconfirmed", "model_usage",
		"interventions_applied", "models", "persona_chain", "reason", "resolved", "resolved_turn", "sandbox", "steps", "task", "turns",
		"user_model", "verdicts_disagree", "weighted_turns", "ended", "model_calls", "roles"}
	slices.Sort(summaryFields)
	if !slices.Equal(have, summaryFields) || indexVersion != 2 {
		t.Errorf("Summary keeps %q; with indexVersion %d it was %q: change indexVersion with the list", have, indexVersion, summaryFields)
	}
}

// zero says whether a decoded JSON value is empty: null, zero, or an
// object of zeros (result.json's timings, always written).
func zero(v any) bool {
	if m, ok := v.(map[string]any); ok {
		for _, x := range m {
			if !zero(x) {
				return false
			}
		}
		return true
	}
	return v == nil || reflect.ValueOf(v).IsZero()
}

// fill sets every field of v to a value that is not its zero, varied by i.
func fill(v reflect.Value, i int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", i))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(i + 1))
	case reflect.Uint64:
		v.SetUint(uint64(i + 1))
	case reflect.Float64:
		v.SetFloat(float64(i) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), i)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), i)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, i)
		fill(e, i)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for j := range v.NumField() {
			if v.Type().Field(j).IsExported() {
				fill(v.Field(j), i)
			}
		}
	}
}

// TestChunks: lines cut by a chunk's end, longer than a chunk, empty, and
// a last one without its newline, all come whole and in order.
func TestChunks(t *testing.T) {
	long := strings.Repeat("x", 50)
	text := "a\nbb\n\n" + long + "\nccc\n" + long + long + "\nlast"
	for _, size := range []int{1, 3, 7, 16, 64, 1000} {
		var got []string
		chunksOf(strings.NewReader(text), size, func(lines [][]byte) bool {
			for _, l := range lines {
				if len(l) > 0 {
					got = append(got, string(l))
				}
			}
			return true
		})
		if want := []string{"a", "bb", long, "ccc", long + long, "last"}; !slices.Equal(got, want) {
			t.Errorf("chunks of %d: %q", size, got)
		}
	}
}

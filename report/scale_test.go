package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/score"
)

// manyTrials are n trials over n/10 tasks (2 agents, 2 conditions,
// runs), each with a timeline of 20 marks.
func manyTrials(n int) []score.Trial {
	var out []score.Trial
	for i := range n {
		ok := i%3 != 0
		task := fmt.Sprintf("task-%04d", i/10)
		agent, cond := []string{"a", "b"}[i%2], []string{"vanilla", "counter-edit"}[(i/2)%2]
		t := score.Trial{Dir: fmt.Sprintf("r/%s/%s/%s/run-%d", agent, cond, task, (i/4)%3),
			Result: result.Run{Task: task, AgentName: agent, Condition: cond, Resolved: &ok, Steps: 20}}
		for j := range 20 {
			t.Marks = append(t.Marks, score.Mark{Seq: int64(j + 1), Kind: event.Read, Actor: "agent", Label: "cat file.py"})
		}
		out = append(out, t)
	}
	return out
}

// TestReportSamplesPastMaxShown: past MaxShown trials report.html lists
// and draws only a sample of whole tasks and says so, while report.json
// keeps every trial's timeline; asked for tasks, it draws those. Without
// the sample the page of 5,000 trials was 5,000 timeline rows.
func TestReportSamplesPastMaxShown(t *testing.T) {
	rep := New("many", "r", manyTrials(5000))
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	rows := strings.Count(page.String(), `<g class="trial"`)
	if rows == 0 || rows > MaxShown {
		t.Errorf("%d timeline rows, want 1 to %d", rows, MaxShown)
	}
	if !strings.Contains(page.String(), `id="trials-shown">A sample: the `+fmt.Sprint(rows)+` trials of every`) {
		t.Error("the page does not say its trials are a sample")
	}
	// whole tasks: every row's task has all of its 10 trials on the page
	if rows%10 != 0 {
		t.Errorf("%d rows: a task's trials cut apart", rows)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Trials) != 5000 || len(back.Trials[4999].Marks) != 20 {
		t.Errorf("report.json: %d trials", len(back.Trials))
	}

	rep.ShowTasks = []string{"task-0007", "task-0042"}
	page.Reset()
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), `<g class="trial"`); n != 20 {
		t.Errorf("asked for 2 tasks: %d rows, want 20", n)
	}
	if !strings.Contains(page.String(), "task-0042 · ") || strings.Contains(page.String(), "task-0041 · ") {
		t.Error("the rows are not the tasks asked for")
	}

	small := New("few", "r", manyTrials(MaxShown))
	page.Reset()
	if err := small.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), `<g class="trial"`); n != MaxShown || strings.Contains(page.String(), "trials-shown") {
		t.Errorf("%d trials: %d rows, want all, and no note", MaxShown, n)
	}
}

// TestWriteJSONIsEncoders: report.json written a trial at a time is the
// bytes json.Encoder with a two-space indent writes for the whole report
// (with trials, and with none).
func TestWriteJSONIsEncoders(t *testing.T) {
	for _, n := range []int{0, 1, 30} {
		trials := manyTrials(n)
		if n > 0 { // what encoders may write apart: HTML, line separators, bytes that are not UTF-8, floats
			trials[0].Marks = append(trials[0].Marks, score.Mark{Seq: 99, Kind: "run", Label: "a <b> & c \u2028 \xff\xfe é \x00 \"q\""})
			trials[0].Result.Steps = 1 << 40
			trials[0].Result.ModelUsage = &result.ModelUsage{CostUSD: &[]float64{1e-7}[0]}
		}
		rep := New("json <&>", "r", trials)
		var want, got bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetIndent("", "  ")
		if err := e.Encode(rep); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d trials: report.json differs from the encoder's:\n%s\nwant\n%s", n, got.String(), want.String())
		}
	}
}

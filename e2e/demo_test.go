package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/analyze"
	"github.com/swetouch/swetouch/demo"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/score"
)

// TestDemo runs the demo as `swetouch demo` does and checks its headline:
// under Counter-Edit the naive agent fails every task and the careful one
// resolves every task; under Vanilla both resolve all; every Counter-Edit
// is applied and its message delivered.
func TestDemo(t *testing.T) {
	testsupport.Slow(t)
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	reportDir := t.TempDir()
	res, err := demo.Run(context.Background(), demo.Config{Examples: examplesDir, Report: reportDir, Swetouch: filepath.Join(bin, "swetouch"), Shim: filepath.Join(bin, "swetouch-shim"), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	runs, rows := res.Runs, res.Rows
	for _, r := range runs {
		if r.AgentExit != 0 {
			t.Errorf("%s/%s/%s: agent exited %d", r.Task, r.Condition, r.Agent, r.AgentExit)
		}
	}
	// the table is the score of the runs/ folder, with the fate of the
	// user's edit read from each run's trajectory and final diff
	want := map[[2]string]int{{"naive", "vanilla"}: 3, {"careful", "vanilla"}: 3, {"naive", "counter-edit"}: 0, {"careful", "counter-edit"}: 3}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for _, r := range rows {
		if n, ok := want[[2]string{r.Agent, r.Condition}]; !ok || r.Resolved != n || r.Trials != 3 || r.Unknown != 0 {
			t.Errorf("%s/%s: %d of %d resolved, %d null; want %d of 3", r.Agent, r.Condition, r.Resolved, r.Trials, r.Unknown, n)
		}
		if r.Condition != "counter-edit" {
			continue
		}
		if r.Applied != 3 || r.Delivered != 3 {
			t.Errorf("%s/%s: applied %d, delivered %d", r.Agent, r.Condition, r.Applied, r.Delivered)
		}
		// one run a task: no majority, so no retention (score.MajorityRuns)
		if r.Retention != nil {
			t.Errorf("%s under counter-edit: retention %v from single runs", r.Agent, *r.Retention)
		}
		switch r.Agent {
		case "naive":
			if r.Fates[score.Retained] != 3 {
				t.Errorf("naive under counter-edit: %+v", r)
			}
		case "careful":
			if r.Fates[score.Retained] != 0 {
				t.Errorf("careful under counter-edit: %+v", r)
			}
		}
	}
	var table strings.Builder
	score.WriteTable(&table, rows)
	t.Logf("demo table:\n%s", table.String())
	// the conversations: the careful agent asks first and so resolves
	// later by turns but with fewer weighted turns; the naive one fixes
	// what it guesses and follows what the user reports
	wantTurns := map[string]struct {
		by   []float64 // resolved within 1, 2, 3 turns
		ldpr float64
	}{
		"careful": {[]float64{0, 2.0 / 3, 1}, (0.9 + 0.9 + 0.8125) / 3},
		"naive":   {[]float64{0, 1.0 / 3, 1}, (0.6 + 0.8 + 0.8125) / 3},
	}
	if len(res.Turns) != len(wantTurns) {
		t.Fatalf("conversation rows: %+v", res.Turns)
	}
	for _, r := range res.Turns {
		w := wantTurns[r.Agent]
		if r.Tasks != 3 || r.Errors != 0 || len(r.ResolvedBy) != 8 || math.Abs(r.LDPR-w.ldpr) > 1e-9 {
			t.Errorf("%s: %+v, want LDPR %v", r.Agent, r, w.ldpr)
			continue
		}
		for k, want := range w.by {
			if math.Abs(r.ResolvedBy[k]-want) > 1e-9 {
				t.Errorf("%s: resolved within %d turns %v, want %v", r.Agent, k+1, r.ResolvedBy[k], want)
			}
		}
	}
	// the failure analysis of the demo's runs: the naive agent's three
	// counter-edit failures (vanilla solved each) labelled by the scripted
	// judge, recorded and replayed offline; the careful agent's runs
	// analysed, not labelled
	t.Run("analyze", func(t *testing.T) {
		a := analyzeRecordReplay(t, filepath.Join(reportDir, "runs"))
		labelled := 0
		for _, at := range a.Trials {
			switch {
			case at.Agent == "naive" && (at.Verdict == nil || at.Verdict.Label != analyze.RetainedConflict):
				t.Errorf("%s: verdict %+v", at.Dir, at.Verdict)
			case at.Agent == "careful" && at.Verdict != nil:
				t.Errorf("%s: resolved, yet labelled %+v", at.Dir, at.Verdict)
			}
			if at.Verdict != nil {
				labelled++
			}
		}
		if len(a.Trials) != 6 || labelled != 3 {
			t.Errorf("%d runs analysed, %d labelled; want 6 and 3", len(a.Trials), labelled)
		}
	})
	// every demo session, replayed under its own condition, is the same
	// session again: commands, outputs, classification, decisions
	t.Run("replay", func(t *testing.T) {
		for _, r := range runs {
			traj := filepath.Join(reportDir, "runs", r.Task, r.Condition, r.Agent, "trajectory.jsonl")
			cmd := exec.Command(filepath.Join(bin, "swetouch"), "replay", traj, "--task", filepath.Join(examplesDir, "tasks", r.Task),
				"--records", filepath.Join(examplesDir, "tasks", r.Task, "records.jsonl"), "--check", "--out", t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "identical to the recording") {
				t.Errorf("replay of %s/%s/%s: %v\n%s", r.Task, r.Condition, r.Agent, err, out)
			}
		}
	})
	for _, f := range []string{report.HTMLFile, report.JSONFile, report.SummaryCSV, report.TrialsCSV, "runs.json"} {
		if b, err := os.ReadFile(filepath.Join(reportDir, f)); err != nil || !strings.Contains(string(b), "counter-edit") {
			t.Errorf("%s: %v %.200s", f, err, b)
		}
	}
	// the README shows the demo's own tables: run sandboxed, where this
	// test runs without, so its rows' unsandboxed counts are cleared
	shown := *res
	shown.Rows = append([]score.Row(nil), res.Rows...)
	for i := range shown.Rows {
		shown.Rows[i].Unsandboxed = 0
	}
	var printed strings.Builder
	shown.WriteTables(&printed)
	if sample := readmeSample(t); sample != trimLines(printed.String()) {
		t.Errorf("README.md's sample is not what the demo prints; the demo printed:\n%s\nthe README shows:\n%s", printed.String(), sample)
	}
	// the report shows the conversations the demo prints
	var rep report.Report
	if b, err := os.ReadFile(filepath.Join(reportDir, report.JSONFile)); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report.json: %v", err)
	}
	if len(res.Turns) == 0 || len(rep.Turns) != len(res.Turns) {
		t.Errorf("report.json: %d conversation rows, the demo printed %d", len(rep.Turns), len(res.Turns))
	}
	html, _ := os.ReadFile(filepath.Join(reportDir, report.HTMLFile))
	for _, want := range []string{`id="conversations"`, "LDPR", `id="chart-turns"`, `class="turn-timeline"`, `id="summary"`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// readmeSample is the block of demo output README.md shows, each line's
// trailing spaces cut.
func readmeSample(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "The demo prints these tables")
	if !ok {
		t.Fatal("README.md: no sample of the demo's output")
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```\n")
	return trimLines(block)
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

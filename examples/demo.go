package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
)

// DemoConfig says where the examples are and where the report goes.
type DemoConfig struct {
	Examples string // the examples directory (tasks/ and agents/)
	Report   string // the report folder
	Shim     string // the swetouch executable (linked as bash, and run as the agent)
	Log      io.Writer
}

// DemoRun is one row of the demo: a task, a condition, an agent.
type DemoRun struct {
	Task      string  `json:"task"`
	Condition string  `json:"condition"`
	Agent     string  `json:"agent"`
	Resolved  *bool   `json:"resolved"`
	Reason    string  `json:"reason,omitempty"`
	Retained  *bool   `json:"user_edit_retained,omitempty"`
	Steps     int     `json:"steps"`
	Applied   int     `json:"interventions_applied"`
	Delivered int     `json:"messages_delivered"`
	AgentExit int     `json:"agent_exit"`
	Seconds   float64 `json:"seconds"`
}

// Demo runs every example task under Vanilla and Counter-Edit with both
// scripted agents, writes the report folder, and returns the runs.
func Demo(ctx context.Context, cfg DemoConfig) ([]DemoRun, error) {
	examples, err := filepath.Abs(cfg.Examples)
	if err != nil {
		return nil, err
	}
	cfg.Examples = examples
	tasksDir := filepath.Join(cfg.Examples, "tasks")
	entries, err := os.ReadDir(tasksDir)
	if err != nil {
		return nil, fmt.Errorf("examples not found (%v): run from the repository root or pass --examples", err)
	}
	var runs []DemoRun
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := task.Load(filepath.Join(tasksDir, e.Name()))
		if err != nil {
			return nil, err
		}
		recs, err := task.LoadRecords(filepath.Join(t.Dir, "records.jsonl"))
		if err != nil {
			return nil, err
		}
		rec, err := task.Find(recs, t.Name)
		if err != nil {
			return nil, err
		}
		plan := filepath.Join(cfg.Examples, "agents", t.Name+".json")
		for _, cond := range []policy.Condition{policy.Vanilla, policy.CounterEdit} {
			for _, agent := range []string{Naive, Careful} {
				out := filepath.Join(cfg.Report, "runs", t.Name, string(cond), agent)
				fmt.Fprintf(cfg.Log, "%-12s %-12s %-8s ", t.Name, cond, agent)
				r, err := session.Run(ctx, session.RunConfig{
					Task: t, Record: rec, Condition: cond, Out: out, Shim: cfg.Shim, KeepWorkspace: true, AgentName: agent,
					Agent: []string{cfg.Shim, "agent", "script", "--plan", plan, "--behaviour", agent},
				})
				if err != nil {
					return runs, err
				}
				run := DemoRun{Task: t.Name, Condition: string(cond), Agent: agent, Resolved: r.Resolved, Reason: r.Reason,
					Steps: r.Steps, Applied: r.Applied, Delivered: r.Delivered, AgentExit: r.AgentExit, Seconds: r.Timings.Total}
				if cond != policy.Vanilla {
					run.Retained = retained(rec.CounterEdit.Interventions[0].Patch.Diff, r.Workspace)
				}
				os.RemoveAll(r.Workspace)
				fmt.Fprintf(cfg.Log, "resolved=%s %.1fs", show(r.Resolved), r.Timings.Total)
				if r.AgentExit != 0 {
					fmt.Fprintf(cfg.Log, " (the agent exited %d: see %s)", r.AgentExit, out)
				}
				fmt.Fprintln(cfg.Log)
				runs = append(runs, run)
			}
		}
	}
	return runs, writeReport(cfg.Report, runs)
}

// retained reports whether the Counter-Edit's added lines are all still in
// the final workspace.
func retained(diff, ws string) *bool {
	fds, err := patch.Parse(diff)
	if err != nil {
		return nil
	}
	keep := true
	for _, fd := range fds {
		b, err := os.ReadFile(filepath.Join(ws, fd.Path()))
		if err != nil {
			keep = false
			continue
		}
		for _, h := range fd.Hunks {
			for _, l := range h.Lines {
				if l.Kind == '+' && !strings.Contains(string(b), l.Text) {
					keep = false
				}
			}
		}
	}
	return &keep
}

func show(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

// Row is one line of the summary table: an agent under a condition.
type Row struct {
	Agent, Condition            string
	Runs, Resolved              int
	Rate, Delta                 float64
	Retained, RetainedOf        int
	Steps                       float64
	Applied, Delivered, Unknown int
}

// Summarize groups runs by agent and condition; Delta is the resolve rate
// minus the same agent's Vanilla rate.
func Summarize(runs []DemoRun) []Row {
	idx := map[[2]string]*Row{}
	var keys [][2]string
	for _, r := range runs {
		k := [2]string{r.Agent, r.Condition}
		row, ok := idx[k]
		if !ok {
			row = &Row{Agent: r.Agent, Condition: r.Condition}
			idx[k] = row
			keys = append(keys, k)
		}
		row.Runs++
		row.Steps += float64(r.Steps)
		row.Applied += r.Applied
		row.Delivered += r.Delivered
		switch {
		case r.Resolved == nil:
			row.Unknown++
		case *r.Resolved:
			row.Resolved++
		}
		if r.Retained != nil {
			row.RetainedOf++
			if *r.Retained {
				row.Retained++
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i][0] < keys[j][0] })
	var rows []Row
	for _, k := range keys {
		row := idx[k]
		row.Rate = float64(row.Resolved) / float64(row.Runs)
		row.Steps /= float64(row.Runs)
		if v, ok := idx[[2]string{k[0], string(policy.Vanilla)}]; ok {
			row.Delta = row.Rate - float64(v.Resolved)/float64(v.Runs)
		}
		rows = append(rows, *row)
	}
	return rows
}

// WriteTable prints the summary table.
func WriteTable(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\tresolved\trate\tΔ vs vanilla\tretention\tsteps\tapplied\tdelivered")
	for _, r := range rows {
		ret := "-"
		if r.RetainedOf > 0 {
			ret = fmt.Sprintf("%d/%d", r.Retained, r.RetainedOf)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.0f%%\t%+.0f pp\t%s\t%.1f\t%d\t%d\n", r.Agent, r.Condition, r.Resolved, r.Runs, 100*r.Rate, 100*r.Delta, ret, r.Steps, r.Applied, r.Delivered)
	}
	tw.Flush()
}

func writeReport(dir string, runs []DemoRun) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(runs, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "runs.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# swetouch demo\n\nGenerated %s. Each run's trajectory and result are under runs/.\n\n```\n", time.Now().UTC().Format(time.RFC3339))
	WriteTable(&sb, Summarize(runs))
	sb.WriteString("```\n")
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(sb.String()), 0o644)
}

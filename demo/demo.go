// Package demo runs the example tasks under Vanilla and Counter-Edit, and
// the example conversations, with both scripted agents, offline, and
// writes the report (swetouch demo).
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/examples"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/agents/scripted"
	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// Config says where the examples are and where the report goes.
type Config struct {
	Examples string // the examples directory (tasks/ and agents/); "" for the embedded ones
	Report   string // the report folder
	Swetouch string // the swetouch executable, run as the scripted agent
	// Shim is linked as bash and sh ("" = swetouch-shim beside this
	// executable, else this executable).
	Shim string
	Log  io.Writer
	// Sandbox isolates each run's agent and tests, as
	// run.Config's does (a nil Runner: none).
	Sandbox sandbox.Setup
	// UserModel writes the user's messages (nil: the records' own text).
	UserModel user.Writer
}

// Trial is one row of the demo: a task, a condition, an agent.
type Trial struct {
	Task      string  `json:"task"`
	Condition string  `json:"condition"`
	Agent     string  `json:"agent"`
	Resolved  *bool   `json:"resolved"`
	Reason    string  `json:"reason,omitempty"`
	Steps     int     `json:"steps"`
	Applied   int     `json:"interventions_applied"`
	Delivered int     `json:"messages_delivered"`
	AgentExit int     `json:"agent_exit"`
	Seconds   float64 `json:"seconds"`
}

// Result is what the demo ran and how it scored.
type Result struct {
	Runs []Trial
	// Rows score the single-turn runs (Vanilla and Counter-Edit).
	Rows []score.Row
	// Turns score the conversations.
	Turns []score.TurnRow
}

// WriteTables prints what the demo prints of its scores: the single-turn
// table, its rank changes and the conversations' table (the README shows
// it, and TestDemo holds the two the same).
func (r *Result) WriteTables(w io.Writer) {
	score.WriteTable(w, r.Rows)
	if ranks := score.Ranks(r.Rows); len(ranks) > 0 {
		fmt.Fprintln(w)
		score.WriteRanks(w, ranks)
	}
	if len(r.Turns) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Conversations (the example multi-turn tasks, the user played by the offline renderer):")
		score.WriteTurnTable(w, r.Turns)
	}
}

// Demo runs every example task under Vanilla and Counter-Edit, and every
// example conversation, with both scripted agents, writes the report
// folder, and returns the runs and their scores.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Examples == "" {
		// the embedded examples, wherever swetouch runs
		dir, err := os.MkdirTemp("", "swetouch-examples-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if err := examples.Extract(dir); err != nil {
			return nil, err
		}
		cfg.Examples = dir
	}
	examples, err := filepath.Abs(cfg.Examples)
	if err != nil {
		return nil, err
	}
	cfg.Examples = examples
	runs, err := demoTasks(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res := &Result{Runs: runs}
	if err := demoConversations(ctx, cfg); err != nil {
		return nil, err
	}
	if res.Rows, res.Turns, err = writeReport(cfg.Report, runs); err != nil {
		return nil, err
	}
	return res, nil
}

// demoTasks runs the example tasks under Vanilla and Counter-Edit with
// both scripted agents, into the report's runs/ folder.
func demoTasks(ctx context.Context, cfg Config) ([]Trial, error) {
	tasksDir := filepath.Join(cfg.Examples, "tasks")
	entries, err := os.ReadDir(tasksDir)
	if err != nil {
		return nil, fmt.Errorf("--examples: no tasks folder in %s (%v); `swetouch examples extract DIR` writes the built-in ones", cfg.Examples, err)
	}
	var runs []Trial
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
		for _, cond := range []policy.Condition{policy.Vanilla, policy.CounterEdit} {
			for _, agent := range []string{scripted.Naive, scripted.Careful} {
				inv, err := scriptedAgent(cfg, agent, t.Name)
				if err != nil {
					return runs, err
				}
				out := filepath.Join(cfg.Report, "runs", t.Name, string(cond), agent)
				fmt.Fprintf(cfg.Log, "%-12s %-12s %-8s ", t.Name, cond, agent)
				r, err := run.Trial(ctx, run.Config{
					Task: t, Record: rec, Condition: cond, Out: out, Shim: cfg.Shim, KeepWorkspace: true, Agent: inv,
					Sandbox: cfg.Sandbox, Hidden: []string{cfg.Report}, UserModel: cfg.UserModel,
				})
				if err != nil {
					return runs, err
				}
				run := Trial{Task: t.Name, Condition: string(cond), Agent: agent, Resolved: r.Resolved, Reason: r.Reason,
					Steps: r.Steps, Applied: r.Applied, Delivered: r.Delivered, AgentExit: r.AgentExit, Seconds: r.Timings.Total}
				os.RemoveAll(r.Workspace)
				fmt.Fprintf(cfg.Log, "resolved=%s %.1fs", result.ShowResolved(r.Resolved), r.Timings.Total)
				if r.AgentExit != 0 {
					fmt.Fprintf(cfg.Log, " (the agent exited %d: see %s)", r.AgentExit, out)
				}
				fmt.Fprintln(cfg.Log)
				runs = append(runs, run)
			}
		}
	}
	return runs, nil
}

// writeReport writes runs.json and the score report (report.html,
// report.json, summary.csv, trials.csv) of the runs/ and conversations/
// folders: the demo's tables are exactly what `swetouch score` and
// `swetouch report` give of the folder, and the report shows the
// conversations the demo prints.
func writeReport(dir string, runs []Trial) ([]score.Row, []score.TurnRow, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	b, _ := json.MarshalIndent(runs, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "runs.json"), append(b, '\n'), 0o644); err != nil {
		return nil, nil, err
	}
	folders := []string{filepath.Join(dir, "runs")}
	if conv := filepath.Join(dir, "conversations"); isDir(conv) {
		folders = append(folders, conv)
	}
	trials, err := score.Load(folders...)
	if err != nil {
		return nil, nil, err
	}
	rep := report.New("swetouch demo: the example tasks under Vanilla and Counter-Edit, and the example conversations", dir, trials)
	return rep.Summary, rep.Turns, rep.Write(dir)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// scriptedAgent is a scripted agent's invocation on an example task.
func scriptedAgent(cfg Config, name, task string) (agents.Invocation, error) {
	a, err := agents.Lookup(name)
	if err != nil {
		return agents.Invocation{}, err
	}
	return a.Start(agents.Launch{Swetouch: cfg.Swetouch, Plans: filepath.Join(cfg.Examples, "agents"), Task: task})
}

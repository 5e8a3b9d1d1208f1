package report

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/stats"

	_ "embed"
)

// Report is what report.html shows, and what report.json holds.
type Report struct {
	Title   string             `json:"title"`
	Summary []score.Row        `json:"summary"`
	Ranks   []score.RankChange `json:"rank_changes,omitempty"`
	// Turns are the conversations' rows; Comparisons the paired tests;
	// Costs the traffic.
	Turns       []score.TurnRow    `json:"conversations,omitempty"`
	Comparisons []score.Comparison `json:"comparisons,omitempty"`
	Costs       []score.CostRow    `json:"costs,omitempty"`
	Trials      []TrialSummary     `json:"trials"`
	// ShowTasks are the tasks whose trials report.html lists and draws;
	// none: all trials up to MaxShown, past it a sample of tasks.
	ShowTasks []string `json:"-"`
}

// TrialSummary is one trial as the report lists it.
type TrialSummary struct {
	Dir       string `json:"dir"`
	Task      string `json:"task"`
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	Run       string `json:"run"`
	Resolved  *bool  `json:"resolved"`
	Reason    string `json:"reason,omitempty"`
	Steps     int    `json:"steps"`
	Applied   int    `json:"interventions_applied"`
	Delivered int    `json:"messages_delivered"`
	// Unconfirmed messages went out on a channel not shown to reach
	// the model.
	Unconfirmed int           `json:"messages_unconfirmed,omitempty"`
	Fate        string        `json:"user_edit_fate,omitempty"`
	After       *score.Counts `json:"after_last_user_edit,omitempty"`
	Marks       []score.Mark  `json:"timeline"`
	// ModelUsage is the trial's own model traffic (run --model-upstream).
	ModelUsage *result.ModelUsage `json:"model_usage,omitempty"`
	// Conversation is a multi-turn trial's turns (its timeline by turn).
	Conversation *result.Conversation `json:"conversation,omitempty"`
}

// New builds a report from trials. Folders are shown relative to
// root when they are under it.
func New(title, root string, trials []score.Trial, opts ...score.Option) *Report {
	opts = append(opts[:len(opts):len(opts)], score.WithIntervals(stats.NewMemo()))
	rows := score.Summarize(trials, opts...)
	rep := &Report{Title: title, Summary: rows, Ranks: score.Ranks(rows), Trials: []TrialSummary{},
		Turns: score.TurnRows(trials, opts...), Comparisons: score.Comparisons(trials, opts...), Costs: score.Costs(trials)}
	for _, t := range trials {
		r := t.Result
		dir := t.Dir
		if rel, err := filepath.Rel(root, t.Dir); err == nil && !strings.HasPrefix(rel, "..") {
			dir = filepath.ToSlash(rel)
		}
		rep.Trials = append(rep.Trials, TrialSummary{
			Dir: dir, Task: r.Task, Agent: r.AgentName, Condition: r.Condition, Run: runName(t.Dir),
			Resolved: r.Resolved, Reason: r.Reason, Steps: r.Steps, Applied: r.Applied, Delivered: r.Delivered, Unconfirmed: r.Unconfirmed,
			Fate: t.Fate, After: t.After, Marks: t.Marks, Conversation: r.Conversation, ModelUsage: r.ModelUsage,
		})
	}
	sort.SliceStable(rep.Trials, func(i, j int) bool {
		a, b := rep.Trials[i], rep.Trials[j]
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if a.Condition != b.Condition {
			return score.ConditionOrder(a.Condition) < score.ConditionOrder(b.Condition)
		}
		return a.Dir < b.Dir
	})
	return rep
}

// runName is the trial folder's run-N element, if it has one.
func runName(dir string) string {
	for d := dir; d != "." && d != "/" && d != ""; d = filepath.Dir(d) {
		if b := filepath.Base(d); strings.HasPrefix(b, "run-") {
			return b
		}
	}
	return ""
}

// Files a report writes.
const (
	HTMLFile   = "report.html"
	JSONFile   = "report.json"
	SummaryCSV = "summary.csv"
	TrialsCSV  = "trials.csv"
)

// Write writes report.html, report.json, summary.csv and trials.csv into
// dir, each whole or not at all.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{HTMLFile, r.WriteHTML},
		{JSONFile, r.WriteJSON},
		{SummaryCSV, func(w io.Writer) error { score.WriteCSV(w, r.Summary); return nil }},
		{TrialsCSV, r.WriteTrialsCSV},
	}
	for _, f := range files {
		err := atomicfile.Write(filepath.Join(dir, f.name), 0o644, func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<16) // a CSV line or a chart's mark is no write of its own
			if err := f.write(bw); err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteTrialsCSV writes one line per trial.
func (r *Report) WriteTrialsCSV(w io.Writer) error {
	fmt.Fprintln(w, "dir,task,agent,condition,run,resolved,reason,steps,interventions_applied,messages_delivered,user_edit_fate,reads_after,edits_after,tests_after,model_calls,input_tokens,cached_input_tokens,output_tokens,cost_usd,resolved_turn,weighted_turns")
	for _, t := range r.Trials {
		after := ",,"
		if t.After != nil {
			after = fmt.Sprintf("%d,%d,%d", t.After.Reads, t.After.Edits, t.After.Tests)
		}
		usage := ",,,,"
		if u := t.ModelUsage; u != nil {
			cost := ""
			if u.CostUSD != nil {
				cost = fmt.Sprintf("%.6f", *u.CostUSD)
			}
			usage = fmt.Sprintf("%d,%d,%d,%d,%s", u.Calls, u.Input, u.Cached, u.Output, cost)
		}
		turns := ","
		if c := t.Conversation; c != nil {
			turns = fmt.Sprintf(",%.1f", c.WeightedTurns)
			if c.ResolvedTurn != nil {
				turns = fmt.Sprintf("%d,%.1f", *c.ResolvedTurn, c.WeightedTurns)
			}
		}
		fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s,%s,%d,%d,%d,%s,%s,%s,%s\n", score.CSVField(t.Dir), score.CSVField(t.Task), score.CSVField(t.Agent), score.CSVField(t.Condition), t.Run,
			result.ShowResolved(t.Resolved), score.CSVField(t.Reason), t.Steps, t.Applied, t.Delivered, t.Fate, after, usage, turns)
	}
	return nil
}

//go:embed report.html.tmpl
var reportTemplate string

// WriteHTML writes the report as one HTML file with inline SVG charts and
// no outside resources, so it opens anywhere and can be mailed.
func (r *Report) WriteHTML(w io.Writer) error {
	t, err := template.New("report").Funcs(template.FuncMap{
		"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
		"pp":   func(f float64) string { return fmt.Sprintf("%+.0f pp", 100*f) },
		"ptr":  func(f *float64) string { return fmtPtrPct(f) },
		"bool": result.ShowResolved,
		"deref": func(b any) any {
			switch b := b.(type) {
			case *bool:
				return b != nil && *b
			case *int:
				if b == nil {
					return 0
				}
				return *b
			}
			return b
		},
		"deref64": func(f *float64) float64 { return *f },
		"ci":      ci,
		"inc":     func(i int) int { return i + 1 },
		"sub":     func(a, b int) int { return a - b },
		"passing": passing,
		"fate":    func(s string) string { return orDash(s) },
		"after": func(c *score.Counts) string {
			if c == nil {
				return "–"
			}
			return fmt.Sprintf("%d / %d / %d", c.Reads, c.Edits, c.Tests)
		},
	}).Parse(reportTemplate)
	if err != nil {
		return err
	}
	shown, note := r.shown()
	return t.Execute(w, struct {
		*Report
		Shown            []TrialSummary
		ShownNote        template.HTML
		Charts           []template.HTML
		Timeline         template.HTML
		Legend           template.HTML
		NoVanilla        bool
		Curves, LDPRBars template.HTML
		RankChart, Grid  template.HTML
		BudgetRanks      []score.BudgetRank
	}{r, shown, note, r.charts(), timeline(shown), timelineLegend(), !r.hasVanilla(), r.curves(), r.ldprBars(), r.rankChart(), r.separationGrid(), budgetRanks(r.Turns)})
}

func (r *Report) hasVanilla() bool {
	for _, row := range r.Summary {
		if row.Condition == "vanilla" {
			return true
		}
	}
	return false
}

func fmtPtrPct(f *float64) string {
	if f == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100**f)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// budgetRanks are the ranks by budget, when there are agents to rank.
func budgetRanks(rows []score.TurnRow) []score.BudgetRank {
	if len(rows) < 2 {
		return nil
	}
	return score.BudgetRanks(rows)
}

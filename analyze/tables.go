package analyze

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/swetouch/swetouch/score"
)

type cell struct{ agent, cond string }

func cellsOf(trials []Trial) []cell {
	var cs []cell
	for _, t := range trials {
		if c := (cell{t.Agent, t.Condition}); !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b cell) int {
		if a.agent != b.agent {
			return strings.Compare(a.agent, b.agent)
		}
		return score.ConditionOrder(a.cond) - score.ConditionOrder(b.cond)
	})
	return cs
}

// LabelRow counts one agent's labelled failures under one condition by
// label (Fig. 4b), with how many the two labellers agreed on.
type LabelRow struct {
	Agent       string         `json:"agent"`
	Condition   string         `json:"condition"`
	N           int            `json:"labelled"`
	Counts      map[string]int `json:"counts"`
	Agreed      int            `json:"agreed"`
	Adjudicated int            `json:"adjudicated"`
}

func labelRows(trials []Trial) []LabelRow {
	var out []LabelRow
	for _, c := range cellsOf(trials) {
		row := LabelRow{Agent: c.agent, Condition: c.cond, Counts: map[string]int{}}
		for _, t := range trials {
			if (cell{t.Agent, t.Condition}) != c || t.Verdict == nil {
				continue
			}
			row.N++
			row.Counts[t.Verdict.Label]++
			if t.Verdict.A == t.Verdict.B && t.Verdict.A != Unlabelled {
				row.Agreed++
			}
			if t.Verdict.Adjudicated {
				row.Adjudicated++
			}
		}
		if row.N > 0 {
			out = append(out, row)
		}
	}
	return out
}

// ModeRow counts one agent's windows by mode under one condition, and
// the transitions from each window's mode (the first from the user's
// edit) to the next.
type ModeRow struct {
	Agent       string                    `json:"agent"`
	Condition   string                    `json:"condition"`
	Trials      int                       `json:"trials"`
	Counts      map[string]int            `json:"counts"`
	Transitions map[string]map[string]int `json:"transitions"`
}

func modeRows(trials []Trial) []ModeRow {
	var out []ModeRow
	for _, c := range cellsOf(trials) {
		row := ModeRow{Agent: c.agent, Condition: c.cond, Counts: map[string]int{}, Transitions: map[string]map[string]int{}}
		for _, t := range trials {
			if (cell{t.Agent, t.Condition}) != c {
				continue
			}
			row.Trials++
			prev := UserEdit
			for _, m := range t.Windows {
				row.Counts[m]++
				if row.Transitions[prev] == nil {
					row.Transitions[prev] = map[string]int{}
				}
				row.Transitions[prev][m]++
				prev = m
			}
		}
		out = append(out, row)
	}
	return out
}

// PostEditRow is one agent's mean reads, edits and tests after the last
// user edit under one condition, for the runs that resolved and those
// that failed apart.
type PostEditRow struct {
	Agent     string     `json:"agent"`
	Condition string     `json:"condition"`
	Resolved  PostCounts `json:"resolved"`
	Failed    PostCounts `json:"failed"`
}

// PostCounts are means over N runs.
type PostCounts struct {
	N     int     `json:"runs"`
	Reads float64 `json:"reads"`
	Edits float64 `json:"edits"`
	Tests float64 `json:"tests"`
}

func postEditRows(trials []Trial) []PostEditRow {
	var out []PostEditRow
	for _, c := range cellsOf(trials) {
		row := PostEditRow{Agent: c.agent, Condition: c.cond}
		for _, t := range trials {
			if (cell{t.Agent, t.Condition}) != c || t.After == nil || t.Resolved == nil {
				continue
			}
			p := &row.Failed
			if *t.Resolved {
				p = &row.Resolved
			}
			p.N++
			p.Reads += float64(t.After.Reads)
			p.Edits += float64(t.After.Edits)
			p.Tests += float64(t.After.Tests)
		}
		for _, p := range []*PostCounts{&row.Resolved, &row.Failed} {
			if p.N > 0 {
				n := float64(p.N)
				p.Reads, p.Edits, p.Tests = p.Reads/n, p.Edits/n, p.Tests/n
			}
		}
		out = append(out, row)
	}
	return out
}

// WriteText prints the analysis's tables.
func (a *Analysis) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "failure labels (failed runs under a condition on tasks the agent's vanilla mostly solved):")
	fmt.Fprint(tw, "agent\tcondition\tlabelled")
	for _, l := range Labels {
		fmt.Fprintf(tw, "\t%s", l)
	}
	fmt.Fprintln(tw, "\tunlabelled\tagreed\tadjudicated")
	for _, r := range a.Labels {
		fmt.Fprintf(tw, "%s\t%s\t%d", r.Agent, r.Condition, r.N)
		for _, l := range append(slices.Clone(Labels), Unlabelled) {
			fmt.Fprintf(tw, "\t%s", share(r.Counts[l], r.N))
		}
		fmt.Fprintf(tw, "\t%d\t%d\n", r.Agreed, r.Adjudicated)
	}
	tw.Flush()
	if len(a.Labels) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	fmt.Fprintf(w, "\nresponse modes (windows of %d agent actions after the first user edit) and transitions:\n", a.Window)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\truns\trevise\tinspect\tverify\telsewhere\ttransitions (from → to: n)")
	for _, r := range a.Modes {
		total := 0
		for _, n := range r.Counts {
			total += n
		}
		fmt.Fprintf(tw, "%s\t%s\t%d", r.Agent, r.Condition, r.Trials)
		for _, m := range Modes {
			fmt.Fprintf(tw, "\t%s", share(r.Counts[m], total))
		}
		fmt.Fprintf(tw, "\t%s\n", transitionsText(r.Transitions))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nafter the last user edit (mean per run):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\tresolved: runs, reads, edits, tests\tfailed: runs, reads, edits, tests")
	for _, r := range a.PostEdit {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Agent, r.Condition, r.Resolved.text(), r.Failed.text())
	}
	tw.Flush()
	fmt.Fprintln(w)
	score.WritePaper(w, a.Paper, a.Correlations)
}

func (p PostCounts) text() string {
	if p.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%d, %.1f, %.1f, %.1f", p.N, p.Reads, p.Edits, p.Tests)
}

// transitionsText lists a row's transitions, from the user's edit first,
// then by mode order.
func transitionsText(tr map[string]map[string]int) string {
	var parts []string
	for _, from := range append([]string{UserEdit}, Modes...) {
		for _, to := range Modes {
			if n := tr[from][to]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s→%s: %d", from, to, n))
			}
		}
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

func share(n, total int) string {
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(total))
}

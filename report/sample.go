package report

import (
	"fmt"
	"html/template"
	"slices"
)

// MaxShown is how many trials report.html lists and draws a timeline
// for. Past it the page shows the aggregate whole and the trials of a
// sample of tasks (every k-th, all of its trials, so its conditions sit
// side by side), or the tasks asked for (Report.ShowTasks); every trial
// stays in report.json and trials.csv. A timeline costs a few KiB of
// SVG, so 100,000 of them made a 265 MB page no browser opens.
const MaxShown = 200

// shown are the trials the page lists, and a note saying which when
// they are not all of them ("" when they are).
func (r *Report) shown() ([]TrialSummary, template.HTML) {
	if len(r.ShowTasks) > 0 {
		var out []TrialSummary
		for _, t := range r.Trials {
			if slices.Contains(r.ShowTasks, t.Task) {
				out = append(out, t)
			}
		}
		return out, template.HTML(fmt.Sprintf(`<p class="lead" id="trials-shown">The %d trials of the %d tasks asked for, of %d; every trial is in <a href="report.json">report.json</a> and <a href="trials.csv">trials.csv</a>.</p>`,
			len(out), len(r.ShowTasks), len(r.Trials)))
	}
	if len(r.Trials) <= MaxShown {
		return r.Trials, ""
	}
	// the trials are in task order: count each task's, then take every
	// k-th task with the smallest k that keeps the page within MaxShown
	var tasks []string
	count := map[string]int{}
	for _, t := range r.Trials {
		if count[t.Task] == 0 {
			tasks = append(tasks, t.Task)
		}
		count[t.Task]++
	}
	for k := max(1, len(r.Trials)/MaxShown); ; k++ {
		n, picked := 0, map[string]bool{}
		for i := 0; i < len(tasks); i += k {
			n += count[tasks[i]]
			picked[tasks[i]] = true
		}
		if n > MaxShown && k < len(tasks) {
			continue
		}
		out := make([]TrialSummary, 0, n)
		for _, t := range r.Trials {
			if picked[t.Task] {
				out = append(out, t)
			}
		}
		return out, template.HTML(fmt.Sprintf(`<p class="lead" id="trials-shown">A sample: the %d trials of every %stask (%d of %d tasks), of %d trials. Every trial is in <a href="report.json">report.json</a> and <a href="trials.csv">trials.csv</a>; <code>swetouch report --timelines TASK,…</code> draws the tasks named.</p>`,
			len(out), ordinal(k), len(picked), len(tasks), len(r.Trials)))
	}
}

func ordinal(k int) string {
	switch {
	case k == 1:
		return ""
	case k%10 == 2 && k%100 != 12:
		return fmt.Sprintf("%dnd ", k)
	case k%10 == 3 && k%100 != 13:
		return fmt.Sprintf("%drd ", k)
	case k%10 == 1 && k%100 != 11:
		return fmt.Sprintf("%dst ", k)
	}
	return fmt.Sprintf("%dth ", k)
}

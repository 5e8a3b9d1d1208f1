package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/stats"
)

// agentColours are the agents' lines in the turn curves.
var agentColours = []string{"#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#9d755d", "#bab0ac"}

// curves draws resolved-within-k against k for each agent and condition
// of the conversations, each with its 95% band.
func (r *Report) curves() template.HTML {
	if len(r.Turns) == 0 {
		return ""
	}
	K := 0
	for _, row := range r.Turns {
		K = max(K, len(row.ResolvedBy))
	}
	x := func(k int) float64 { // k from 1
		if K < 2 {
			return marginL + plotW/2
		}
		return marginL + float64(plotW)*float64(k-1)/float64(K-1)
	}
	y := func(v float64) float64 { return marginTop + plotH*(1-v) }
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart" id="chart-turns"><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="Resolved within k turns">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<text class="title" x="%d" y="22">Resolved within k turns (95%% bands)</text>`, marginL)
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%.0f%%</text>`,
			marginL, chartW-marginR, y(t), y(t), marginL-6, y(t)+4, 100*t)
	}
	for k := 1; k <= K; k++ {
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%d</text>`, x(k), chartH-marginBottom+16, k)
	}
	for i, row := range r.Turns {
		colour := agentColours[i%len(agentColours)]
		var band, line []string
		for k := range row.ResolvedBy {
			line = append(line, fmt.Sprintf("%.1f,%.1f", x(k+1), y(row.ResolvedBy[k])))
			if ci := row.ResolvedByCI[k]; ci != nil {
				band = append(band, fmt.Sprintf("%.1f,%.1f", x(k+1), y(ci.Hi)))
			}
		}
		for k := len(row.ResolvedBy) - 1; k >= 0; k-- {
			if ci := row.ResolvedByCI[k]; ci != nil {
				band = append(band, fmt.Sprintf("%.1f,%.1f", x(k+1), y(ci.Lo)))
			}
		}
		label := row.Agent + " · " + row.Condition
		fmt.Fprintf(&b, `<polygon class="band" data-agent="%s" points="%s" fill="%s" fill-opacity="0.15"/>`, esc(row.Agent), strings.Join(band, " "), colour)
		fmt.Fprintf(&b, `<polyline class="curve" data-agent="%s" data-condition="%s" points="%s" fill="none" stroke="%s" stroke-width="2"><title>%s</title></polyline>`,
			esc(row.Agent), esc(row.Condition), strings.Join(line, " "), colour, esc(label))
		fmt.Fprintf(&b, `<rect class="key" x="%d" y="%d" width="12" height="12" fill="%s"/><text class="legend" x="%d" y="%d">%s</text>`,
			marginL+150*i, chartH-18, colour, marginL+150*i+16, chartH-8, esc(label))
	}
	b.WriteString(`</svg></figure>`)
	return template.HTML(b.String())
}

// ldprBars draws LDPR per agent and condition with its 95% whiskers.
func (r *Report) ldprBars() template.HTML {
	if len(r.Turns) == 0 {
		return ""
	}
	var agents, conds []string
	rows := map[[2]string]score.TurnRow{}
	for _, row := range r.Turns {
		if !contains(agents, row.Agent) {
			agents = append(agents, row.Agent)
		}
		if !contains(conds, row.Condition) {
			conds = append(conds, row.Condition)
		}
		rows[[2]string{row.Agent, row.Condition}] = row
	}
	c := barChart{id: "chart-ldpr", title: "LDPR (95% whiskers)", note: "no conversations", groups: agents, series: conds,
		min: 0, max: 1, ticks: []float64{0, 0.25, 0.5, 0.75, 1}, format: func(f float64) string { return fmt.Sprintf("%.2f", f) },
		value: func(g, s int) (float64, float64, bool) {
			row, ok := rows[[2]string{agents[g], conds[s]}]
			return row.LDPR, 0, ok && row.Tasks > 0
		},
		ci: func(g, s int) *stats.Interval { return rows[[2]string{agents[g], conds[s]}].LDPRCI },
	}
	return c.svg()
}

// passing counts a turn's passing tests.
func passing(tests map[string]string) string {
	n := 0
	for _, r := range tests {
		if r == "pass" {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(tests))
}

// ci prints an interval in percent ("" for none).
func ci(iv *stats.Interval) string {
	if iv == nil {
		return ""
	}
	return fmt.Sprintf("[%.1f, %.1f]", 100*iv.Lo, 100*iv.Hi)
}

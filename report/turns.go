package report

import (
	"fmt"
	"html/template"
	"math"
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
	var keys []legendKey
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
		keys = append(keys, legendKey{colour, label})
	}
	b.WriteString(`</svg>` + legend(keys) + `</figure>`)
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

// ci shows an interval in percent on a line of its own under its value,
// so a rate's column is as wide as the interval alone (nothing for none).
func ci(iv *stats.Interval) template.HTML {
	if iv == nil {
		return ""
	}
	return template.HTML(fmt.Sprintf(`<span class="ci">[%.1f, %.1f]</span>`, 100*iv.Lo, 100*iv.Hi))
}

// rankChart draws each agent's place by resolved-within-k at every
// budget k (1 at the top): where the lines cross, the ranking changes
// with the budget.
func (r *Report) rankChart() template.HTML {
	ranks := budgetRanks(r.Turns)
	if len(ranks) == 0 {
		return ""
	}
	K, places := 0, 1
	for _, br := range ranks {
		K = max(K, len(br.Ranks))
		for _, p := range br.Ranks {
			places = max(places, p)
		}
	}
	x := func(k int) float64 {
		if K < 2 {
			return marginL + plotW/2
		}
		return marginL + float64(plotW)*float64(k-1)/float64(K-1)
	}
	y := func(p int) float64 {
		if places < 2 {
			return marginTop + plotH/2
		}
		return marginTop + float64(plotH)*float64(p-1)/float64(places-1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart" id="chart-ranks"><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="Rank by budget">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<text class="title" x="%d" y="22">Place by budget k (resolved within k turns)</text>`, marginL)
	for p := 1; p <= places; p++ {
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%d</text>`,
			marginL, chartW-marginR, y(p), y(p), marginL-6, y(p)+4, p)
	}
	for k := 1; k <= K; k++ {
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%d</text>`, x(k), chartH-marginBottom+16, k)
	}
	var keys []legendKey
	for i, br := range ranks {
		colour := agentColours[i%len(agentColours)]
		var pts []string
		for k, p := range br.Ranks {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(k+1), y(p)))
		}
		label := br.Agent + " · " + br.Condition
		// a line a little off its neighbours', so ties stay visible
		fmt.Fprintf(&b, `<polyline class="rank" data-agent="%s" points="%s" fill="none" stroke="%s" stroke-width="2" transform="translate(0,%d)"><title>%s</title></polyline>`,
			esc(br.Agent), strings.Join(pts, " "), colour, 3*i-3*(len(ranks)-1)/2, esc(label))
		keys = append(keys, legendKey{colour, label})
	}
	b.WriteString(`</svg>` + legend(keys) + `</figure>`)
	return template.HTML(b.String())
}

// separationGrid draws, for each metric and condition, the agents against
// each other: a cell per pair with its difference, marked when the pair
// is separated at 5% FDR.
func (r *Report) separationGrid() template.HTML {
	type key struct{ metric, cond string }
	var keys []key
	pairs := map[key][]score.Comparison{}
	for _, c := range r.Comparisons {
		if c.Kind != "agents" {
			continue
		}
		k := key{c.Metric, c.Condition}
		if _, ok := pairs[k]; !ok {
			keys = append(keys, k)
		}
		pairs[k] = append(pairs[k], c)
	}
	var b strings.Builder
	for _, k := range keys {
		var agents []string
		for _, c := range pairs[k] {
			for _, a := range []string{c.A, c.B} {
				if !contains(agents, a) {
					agents = append(agents, a)
				}
			}
		}
		fmt.Fprintf(&b, `<table class="grid" data-metric="%s" data-condition="%s"><caption>%s under %s: row − column</caption><thead><tr><th></th>`, esc(k.metric), esc(k.cond), esc(k.metric), esc(k.cond))
		for _, a := range agents {
			fmt.Fprintf(&b, `<th>%s</th>`, esc(a))
		}
		b.WriteString(`</tr></thead><tbody>`)
		for _, row := range agents {
			fmt.Fprintf(&b, `<tr><th>%s</th>`, esc(row))
			for _, col := range agents {
				cell, class := "", "self"
				for _, c := range pairs[k] {
					sign := 0.0
					switch {
					case c.A == row && c.B == col:
						sign = 1
					case c.A == col && c.B == row:
						sign = -1
					default:
						continue
					}
					class = "apart"
					if c.Separated {
						class = "separated"
					}
					d := sign * c.Diff
					if math.Abs(d) < 5e-4 {
						d = 0 // no "-0.000"
					}
					cell = fmt.Sprintf("%+.3f (p<sub>BH</sub> %.3f)", d, c.PAdj)
				}
				fmt.Fprintf(&b, `<td class="%s">%s</td>`, class, cell)
			}
			b.WriteString(`</tr>`)
		}
		b.WriteString(`</tbody></table>`)
	}
	return template.HTML(b.String())
}

package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/stats"
)

// Colours of the conditions in the charts, and of the events on the
// timeline; a colour-blind-safe palette (Tableau 10).
var conditionColours = map[string]string{
	"vanilla":      "#4c78a8",
	"counter-edit": "#e45756",
	"co-edit":      "#f58518",
	"message-only": "#72b7b2",
	"code-only":    "#b279a2",
}

const otherColour = "#9d9d9d"

func conditionColour(c string) string {
	if col, ok := conditionColours[c]; ok {
		return col
	}
	return otherColour
}

var kindColours = map[event.Kind]string{
	event.Read: "#4c78a8",
	event.Edit: "#f58518",
	event.Test: "#54a24b",
	event.Run:  otherColour,
}

const (
	userEditColour = "#e45756"
	messageColour  = "#b279a2"
)

// barChart is a grouped bar chart: a group per agent, a bar per condition.
type barChart struct {
	id, title, note string
	groups          []string
	series          []string
	// value is the bar of group g, series s: its height, its sd (0 for
	// none), and whether there is a bar at all.
	value func(g, s int) (v, sd float64, ok bool)
	// ci, when set, is the bar's 95% interval, drawn as whiskers
	ci       func(g, s int) *stats.Interval
	min, max float64
	ticks    []float64
	format   func(float64) string
}

const (
	chartW, chartH             = 480, 270
	marginL, marginR           = 64, 16
	marginTop, marginBottom    = 40, 42
	plotW                      = chartW - marginL - marginR
	plotH                      = chartH - marginTop - marginBottom
	maxBarW                    = 56
	timelineW, timelineLabelW  = 980, 330
	timelineResultW, timelineH = 80, 26
)

func (c barChart) y(v float64) float64 {
	v = math.Max(c.min, math.Min(c.max, v))
	return marginTop + plotH*(c.max-v)/(c.max-c.min)
}

func (c barChart) svg() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart" id="%s"><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		c.id, chartW, chartH, chartW, chartH, esc(c.title))
	fmt.Fprintf(&b, `<text class="title" x="%d" y="22">%s</text>`, marginL, esc(c.title))
	for _, t := range c.ticks {
		y := c.y(t)
		cls := "grid"
		if t == 0 {
			cls = "axis"
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, cls, marginL, chartW-marginR, y, y)
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`, marginL-6, y+4, esc(c.format(t)))
	}
	bars := 0
	if len(c.groups) > 0 && len(c.series) > 0 {
		gw := float64(plotW) / float64(len(c.groups))
		bw := math.Min(maxBarW, gw*0.8/float64(len(c.series)))
		for g, name := range c.groups {
			x0 := marginL + gw*float64(g) + (gw-bw*float64(len(c.series)))/2
			for s, cond := range c.series {
				v, sd, ok := c.value(g, s)
				if !ok {
					continue
				}
				bars++
				x := x0 + bw*float64(s)
				top, bottom := c.y(math.Max(v, 0)), c.y(math.Min(v, 0))
				if c.min >= 0 {
					bottom = c.y(c.min)
				}
				h := math.Max(bottom-top, 1) // a zero bar stays visible as a line
				fmt.Fprintf(&b, `<rect class="bar" data-agent="%s" data-condition="%s" data-value="%.4f" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s · %s: %s</title></rect>`,
					esc(name), esc(cond), v, x+1, top, bw-2, h, conditionColour(cond), esc(name), esc(cond), esc(c.format(v)))
				if sd > 0 {
					cx := x + bw/2
					fmt.Fprintf(&b, `<line class="sd" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, cx, cx, c.y(v-sd), c.y(v+sd))
				}
				if c.ci != nil {
					if iv := c.ci(g, s); iv != nil {
						cx := x + bw/2
						fmt.Fprintf(&b, `<line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line class="whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`,
							cx, cx, c.y(iv.Lo), c.y(iv.Hi), cx-5, cx+5, c.y(iv.Lo), c.y(iv.Lo), cx-5, cx+5, c.y(iv.Hi), c.y(iv.Hi))
					}
				}
				ly := top - 5
				if v < 0 {
					ly = c.y(v) + 14
				}
				if c.ci != nil && v >= 0 {
					if iv := c.ci(g, s); iv != nil {
						ly = math.Min(ly, c.y(iv.Hi)-5) // above the whisker, not through it
					}
				}
				fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x+bw/2, ly, esc(c.format(v)))
			}
			fmt.Fprintf(&b, `<text class="group" x="%.1f" y="%d" text-anchor="middle">%s</text>`, marginL+gw*(float64(g)+0.5), chartH-marginBottom+34, esc(name))
		}
	}
	if bars == 0 {
		fmt.Fprintf(&b, `<text class="empty" x="%d" y="%d" text-anchor="middle">%s</text>`, marginL+plotW/2, marginTop+plotH/2, esc(c.note))
	}
	b.WriteString(`</svg>`)
	var keys []legendKey
	for _, cond := range c.series {
		keys = append(keys, legendKey{conditionColour(cond), cond})
	}
	b.WriteString(legend(keys))
	b.WriteString(`</figure>`)
	return template.HTML(b.String())
}

// legendKey is one entry of a chart's legend: a colour and what it is.
type legendKey struct{ colour, label string }

// legend is a chart's legend as HTML under its drawing, not text placed
// in the SVG: the browser lays it out and wraps it to the chart's width,
// so a long label ("naive · counter-edit") is never cut or drawn over
// its neighbour.
func legend(keys []legendKey) string {
	if len(keys) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<ul class="legend chart-legend">`)
	for _, k := range keys {
		fmt.Fprintf(&b, `<li><span class="swatch" style="background:%s"></span>%s</li>`, k.colour, esc(k.label))
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// charts draws the resolve rate per condition, Δ per agent and retention.
func (r *Report) charts() []template.HTML {
	var agents, conds, changed []string
	rows := map[[2]string]score.Row{}
	for _, row := range r.Summary {
		if !contains(agents, row.Agent) {
			agents = append(agents, row.Agent)
		}
		if !contains(conds, row.Condition) {
			conds = append(conds, row.Condition)
			if row.Condition != "vanilla" {
				changed = append(changed, row.Condition)
			}
		}
		rows[[2]string{row.Agent, row.Condition}] = row
	}
	hasVanilla := r.hasVanilla()
	pctTicks := []float64{0, 0.25, 0.5, 0.75, 1}
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
	rate := barChart{
		id: "chart-rate", title: "Resolve rate per condition (mean ± sd over runs)", note: "no trials",
		groups: agents, series: conds, min: 0, max: 1, ticks: pctTicks, format: pct,
		value: func(g, s int) (float64, float64, bool) {
			row, ok := rows[[2]string{agents[g], conds[s]}]
			return row.Rate, row.RateSD, ok && row.Trials > row.Unknown
		},
	}
	delta := barChart{
		id: "chart-delta", title: "Δ resolve rate against vanilla, per agent", note: "Δ needs vanilla trials and another condition",
		groups: agents, series: changed, min: -1, max: 1, ticks: []float64{-1, -0.5, 0, 0.5, 1},
		format: func(f float64) string { return fmt.Sprintf("%+.0f pp", 100*f) },
		value: func(g, s int) (float64, float64, bool) {
			row, ok := rows[[2]string{agents[g], changed[s]}]
			if !ok || row.Delta == nil {
				return 0, 0, false
			}
			return *row.Delta, 0, row.Trials > row.Unknown
		},
	}
	retention := barChart{
		id: "chart-retention", title: "Retention: vanilla-solved tasks still solved", note: "retention needs tasks that vanilla majority-solves",
		groups: agents, series: changed, min: 0, max: 1, ticks: pctTicks, format: pct,
		value: func(g, s int) (float64, float64, bool) {
			row, ok := rows[[2]string{agents[g], changed[s]}]
			if !ok || row.Retention == nil {
				return 0, 0, false
			}
			return *row.Retention, 0, true
		},
	}
	if !hasVanilla {
		delta.groups, retention.groups = nil, nil
	}
	return []template.HTML{rate.svg(), delta.svg(), retention.svg()}
}

// timeline draws each of the trials as a row of its events in order, with
// the Counter-Edits, the user's messages and the intervention attempts
// marked.
func timeline(trials []TrialSummary) template.HTML {
	longest := 1
	for _, t := range trials {
		longest = max(longest, len(t.Marks))
	}
	area := float64(timelineW - timelineLabelW - timelineResultW)
	step := math.Max(3, math.Min(16, area/float64(longest)))
	h := timelineH*len(trials) + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" id="timeline" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="trial timelines">`,
		timelineW, h, timelineW, h)
	for i, t := range trials {
		y := float64(i*timelineH) + 4
		mid := y + timelineH/2
		label := fmt.Sprintf("%s · %s · %s", t.Task, t.Agent, t.Condition)
		if t.Run != "" {
			label += " · " + t.Run
		}
		fmt.Fprintf(&b, `<g class="trial" data-dir="%s">`, esc(t.Dir))
		if i%2 == 1 {
			fmt.Fprintf(&b, `<rect class="band" x="0" y="%.1f" width="%d" height="%d"/>`, y, timelineW, timelineH)
		}
		fmt.Fprintf(&b, `<text class="row" x="4" y="%.1f">%s</text>`, mid+4, esc(label))
		for j, m := range t.Marks {
			x := float64(timelineLabelW) + float64(j)*step
			w := math.Max(step-2, 2)
			title := fmt.Sprintf("#%d %s", m.Seq, m.Kind)
			if m.Actor != "" && m.Actor != string(event.Agent) {
				title += " (" + m.Actor + ")"
			}
			if m.Label != "" {
				title += ": " + m.Label
			}
			switch {
			case m.Kind == event.Intervention:
				cls, fill := "attempt", "none"
				if m.Outcome == "applied" {
					cls, fill = "attempt applied", userEditColour
				}
				fmt.Fprintf(&b, `<path class="%s" d="M%.1f %.1f l%.1f 0 l%.1f 9 z" fill="%s"><title>%s</title></path>`,
					cls, x, y+1, w, -w/2, fill, esc(title))
			case m.Kind == event.Edit && m.Actor == string(event.User):
				fmt.Fprintf(&b, `<rect class="mark user-edit" x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
					x, y+2, w, timelineH-4, userEditColour, esc(title))
			case m.Kind == event.Message:
				fmt.Fprintf(&b, `<path class="mark message" d="M%.1f %.1f l%.1f %.1f l%.1f %.1f l%.1f %.1f z" fill="%s"><title>%s</title></path>`,
					x+w/2, mid-7, w/2, 7.0, -w/2, 7.0, -w/2, -7.0, messageColour, esc(title))
			default:
				fill, ok := kindColours[m.Kind]
				if !ok {
					fill = otherColour
				}
				fmt.Fprintf(&b, `<rect class="mark %s" x="%.1f" y="%.1f" width="%.1f" height="12" fill="%s"><title>%s</title></rect>`,
					esc(string(m.Kind)), x, mid-6, w, fill, esc(title))
			}
		}
		result, cls := "null", "null"
		if t.Resolved != nil {
			result, cls = "✗ failed", "failed"
			if *t.Resolved {
				result, cls = "✓ resolved", "resolved"
			}
		}
		fmt.Fprintf(&b, `<text class="result %s" x="%d" y="%.1f">%s</text></g>`, cls, timelineW-timelineResultW+4, mid+4, result)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// timelineLegend says what the timeline's marks mean.
func timelineLegend() template.HTML {
	items := []struct{ colour, name string }{
		{kindColours[event.Read], "read"}, {kindColours[event.Edit], "edit"}, {kindColours[event.Test], "test"},
		{kindColours[event.Run], "run"}, {userEditColour, "user edit (Counter-Edit)"}, {messageColour, "user message"},
	}
	var b strings.Builder
	b.WriteString(`<ul class="legend">`)
	for _, it := range items {
		fmt.Fprintf(&b, `<li><span class="swatch" style="background:%s"></span>%s</li>`, it.colour, esc(it.name))
	}
	b.WriteString(`<li><span class="tri"></span>intervention attempt (filled: applied)</li></ul>`)
	return template.HTML(b.String())
}

func esc(s string) string { return html.EscapeString(s) }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

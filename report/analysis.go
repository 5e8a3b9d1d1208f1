package report

import (
	"fmt"
	"html/template"
	"io"
	"path/filepath"

	"github.com/swetouch/swetouch/analyze"
	"github.com/swetouch/swetouch/internal/atomicfile"
)

// AnalysisFile is the failure analysis's section of the report
// (swetouch analyze --out), a page of its own beside report.html.
const AnalysisFile = "analysis.html"

var analysisTmpl = template.Must(template.New("analysis").Funcs(template.FuncMap{
	"share": func(n, total int) template.HTML {
		if total == 0 {
			return "–"
		}
		return template.HTML(fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(total)))
	},
	"total": func(m map[string]int) int {
		t := 0
		for _, n := range m {
			t += n
		}
		return t
	},
	"labels":  func() []string { return append(append([]string{}, analyze.Labels...), analyze.Unlabelled) },
	"modes":   func() []string { return analyze.Modes },
	"froms":   func() []string { return append([]string{analyze.UserEdit}, analyze.Modes...) },
	"get":     func(m map[string]map[string]int, a, b string) int { return m[a][b] },
	"deref64": func(f *float64) float64 { return *f },
	"at":      func(m map[string]int, k string) int { return m[k] },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Failure analysis</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;color:#10243e}table{border-collapse:collapse;margin:1em 0}th,td{padding:4px 10px;border-bottom:1px solid #dde;text-align:right}th:first-child,td:first-child,td.text{text-align:left}</style></head>
<body>
<h2 id="failure-labels">Failure labels</h2>
<p>Runs that failed under a condition after a Counter-Edit landed, on tasks the agent's vanilla runs mostly solved; two labellers, an adjudicator where they disagreed.</p>
<table><thead><tr><th>agent</th><th>condition</th><th>labelled</th>{{range labels}}<th>{{.}}</th>{{end}}<th>agreed</th><th>adjudicated</th></tr></thead><tbody>
{{range .Labels}}{{$r := .}}<tr><td>{{.Agent}}</td><td class="text">{{.Condition}}</td><td>{{.N}}</td>{{range labels}}<td>{{share (at $r.Counts .) $r.N}}</td>{{end}}<td>{{.Agreed}}</td><td>{{.Adjudicated}}</td></tr>
{{else}}<tr><td colspan="12">no labelled runs</td></tr>{{end}}</tbody></table>
<h2 id="response-modes">Response modes</h2>
<p>Windows of {{.Window}} agent actions after the first user edit: revise (an edit of a file the user edited), inspect (a read of one), verify (tests), elsewhere.</p>
<table><thead><tr><th>agent</th><th>condition</th><th>runs</th>{{range modes}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Modes}}{{$r := .}}{{$t := total .Counts}}<tr><td>{{.Agent}}</td><td class="text">{{.Condition}}</td><td>{{.Trials}}</td>{{range modes}}<td>{{share (at $r.Counts .) $t}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{range .Modes}}{{$r := .}}<table class="transitions"><caption>{{.Agent}} · {{.Condition}}: transitions (row → column)</caption><thead><tr><th>from</th>{{range modes}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range froms}}{{$f := .}}<tr><td>{{$f}}</td>{{range modes}}<td>{{get $r.Transitions $f .}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}
<h2 id="post-edit">After the last user edit</h2>
<table><thead><tr><th>agent</th><th>condition</th><th>resolved runs</th><th>reads</th><th>edits</th><th>tests</th><th>failed runs</th><th>reads</th><th>edits</th><th>tests</th></tr></thead><tbody>
{{range .PostEdit}}<tr><td>{{.Agent}}</td><td class="text">{{.Condition}}</td><td>{{.Resolved.N}}</td><td>{{printf "%.1f" .Resolved.Reads}}</td><td>{{printf "%.1f" .Resolved.Edits}}</td><td>{{printf "%.1f" .Resolved.Tests}}</td><td>{{.Failed.N}}</td><td>{{printf "%.1f" .Failed.Reads}}</td><td>{{printf "%.1f" .Failed.Edits}}</td><td>{{printf "%.1f" .Failed.Tests}}</td></tr>
{{end}}</tbody></table>
<h2 id="paper-figures">The paper's figures</h2>
<p>Steps as the paper counts them (model calls, where the recorder counted them) beside swetouch's shell actions; tokens per trial and against the agent's vanilla; the edit revised (Fig. 4c).</p>
<table><thead><tr><th>agent</th><th>condition</th><th>steps (model calls)</th><th>counted</th><th>shell actions</th><th>tokens/trial</th><th>tokens vs vanilla</th><th>edit revised</th></tr></thead><tbody>
{{range .Paper}}<tr><td>{{.Agent}}</td><td class="text">{{.Condition}}</td><td>{{if .ModelCalls}}{{printf "%.1f" (deref64 .ModelCalls)}}{{else}}–{{end}}</td><td>{{.Counted}}/{{.Trials}}</td><td>{{printf "%.1f" .ShellActions}}</td><td>{{if .Tokens}}{{printf "%.0f" (deref64 .Tokens)}}{{else}}–{{end}}</td><td>{{if .TokensVsVanilla}}×{{printf "%.2f" (deref64 .TokensVsVanilla)}} ({{.TokenTasks}} tasks){{else}}–{{end}}</td><td>{{if .RevisionRate}}{{share .Revised .Landed}}{{else}}–{{end}}</td></tr>
{{end}}</tbody></table>
<h2 id="revision">Revision and Δ</h2>
<table><thead><tr><th>condition</th><th>agents</th><th>Spearman ρ (edit revised, Δ vs vanilla)</th></tr></thead><tbody>
{{range .Correlations}}<tr><td>{{.Condition}}</td><td>{{.Agents}}</td><td>{{if .Rho}}{{printf "%+.3f" (deref64 .Rho)}}{{else}}undefined{{end}}</td></tr>
{{else}}<tr><td colspan="3">no condition with revision rates and Δ</td></tr>{{end}}</tbody></table>
</body></html>
`))

// WriteAnalysis writes the failure analysis's section, analysis.html,
// into dir, whole or not at all.
func WriteAnalysis(dir string, a *analyze.Analysis) error {
	return atomicfile.Write(filepath.Join(dir, AnalysisFile), 0o644, func(w io.Writer) error { return analysisTmpl.Execute(w, a) })
}

// Package report draws the scores: a self-contained report.html with
// inline SVG charts and every trial's timeline, and its JSON and CSV.
package report

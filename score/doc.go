// Package score judges runs: the three-state gate that validates a
// Counter-Edit with the task's own tests (and, to come, metrics, reports
// and region mining).
package score

// Package eval runs paired trials: every task under every condition with
// every agent, N runs, resumable by the manifest of the results it wrote,
// here or as Kubernetes jobs (emit). Scoring them is package score's.
package eval

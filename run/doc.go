// Package run is one trial: the workspace made from the task, the host
// (baseline, watcher, hub, shim directory), the agent started in its
// sandbox turn after turn, the verifier, the audit and result.json
// (Trial); and the in-place session a relay starts over a directory an
// editor or harness already owns (StartInPlace). The hub it drives is
// package session's.
package run

// Package session is the hub of one run. It owns the workspace, the
// policy state, the recorder, the watcher and the message outbox, and
// decides one action at a time, in seq order. Adapters in other processes
// reach it over a Unix socket (see docs/protocol.md); in-process callers use
// the same API directly.
package session

// Package session is the hub of one run and the socket its clients use.
// The hub holds the workspace's watcher, the user, the recorder and the
// message outbox, and decides one action at a time, in seq order.
// Adapters in other processes reach it over a Unix socket, admitted
// before a byte is read (see docs/protocol.md); in-process callers use
// the same API directly. Starting a trial around it is package run's.
package session

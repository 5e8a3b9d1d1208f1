// Package testhub serves a session hub over a fresh example workspace, for
// the relays' tests.
package testhub

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
)

// Serve serves a hub over a fresh copy of the example task at taskDir,
// with its first record under cond, on a Unix socket; it returns the
// workspace, the socket and the hub. Everything goes when the test ends.
func Serve(t testing.TB, taskDir string, cond policy.Condition) (string, string, *session.Hub) {
	t.Helper()
	tk, err := task.Load(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := task.LoadRecords(filepath.Join(taskDir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := session.Workspace(tk.Repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	pol, err := policy.New(recs[0], policy.WithCondition(cond))
	if err != nil {
		t.Fatal(err)
	}
	h, err := session.New(ws, session.WithPolicy(pol))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "hub.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ws, sock, h
}

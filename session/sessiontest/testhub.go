// Package testhub serves a session hub over a fresh example workspace, for
// the relays' tests.
package sessiontest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/internal/baseline"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/watch"
)

// Option adds to the hub.
type Option func(*config)

type config struct {
	watched bool
	rec     *trajectory.Writer
}

// Watched gives the hub a watcher over the workspace (edits the agent
// makes itself are seen).
func Watched() Option { return func(c *config) { c.watched = true } }

// Recorded records the hub's events to w.
func Recorded(w *trajectory.Writer) Option { return func(c *config) { c.rec = w } }

// Serve serves a hub over a fresh copy of the example task at taskDir,
// with its first record under cond, on a Unix socket; it returns the
// workspace, the socket and the hub. Everything goes when the test ends.
func Serve(t testing.TB, taskDir string, cond policy.Condition, opts ...Option) (string, string, *session.Hub) {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	recs, err := task.LoadRecords(filepath.Join(taskDir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ws := Workspace(t, taskDir)
	u, err := user.NewRegion(recs[0], user.Options{Condition: cond})
	if err != nil {
		t.Fatal(err)
	}
	hopts := []session.Option{session.WithUser(u)}
	if cfg.watched {
		hopts = append(hopts, session.WithWatcher(Watcher(t, ws)))
	}
	if cfg.rec != nil {
		hopts = append(hopts, session.WithRecorder(cfg.rec))
	}
	h, err := session.New(ws, hopts...)
	if err != nil {
		t.Fatal(err)
	}
	return ws, Listen(t, h), h
}

// Listen serves h on a Unix socket in a temporary directory until the
// test ends, and returns the socket's path.
func Listen(t testing.TB, h *session.Hub) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "hub.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return sock
}

// Workspace makes a fresh git-initialised copy of the example task's
// repository, removed when the test ends.
func Workspace(t testing.TB, taskDir string) string {
	t.Helper()
	tk, err := task.Load(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := run.Workspace(tk.Repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	return ws
}

// Watcher watches ws from its content now (kept outside it, as swetouch
// run keeps it), until the test ends.
func Watcher(t testing.TB, ws string) *watch.Watcher {
	t.Helper()
	b, err := baseline.Take(ws, filepath.Join(t.TempDir(), "base"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := watch.New(ws, watch.From(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

package session_test

import (
	"io"
	"testing"

	"github.com/swetouch/swetouch/internal/testhub"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/session"
)

// BenchmarkCommand is what the hub adds to each command a shim runs: a
// begin and an end over the socket, from a client, as the shim sends
// them. With a watcher each call also drains the watcher's event queue
// (watch.Sync).
func BenchmarkCommand(b *testing.B) {
	for _, c := range []struct {
		name string
		opts func(b *testing.B) []testhub.Option
	}{
		{"hub", func(*testing.B) []testhub.Option { return nil }},
		{"watched", func(*testing.B) []testhub.Option { return []testhub.Option{testhub.Watched()} }},
		{"watched+recorded", func(b *testing.B) []testhub.Option {
			return []testhub.Option{testhub.Watched(), testhub.Recorded(discard(b))}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			_, sock, _ := testhub.Serve(b, example, policy.Vanilla, c.opts(b)...)
			cl, err := session.Dial(sock)
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			for b.Loop() {
				id, err := cl.Begin(session.Begin{Command: "true", Cwd: "."})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := cl.End(id, session.End{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func discard(b *testing.B) *replay.Writer {
	w, err := replay.NewWriter(io.Discard, replay.Header{})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

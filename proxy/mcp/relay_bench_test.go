package mcp

import (
	"fmt"
	"testing"

	"github.com/swetouch/swetouch/internal/testhub"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
)

// BenchmarkRelayCall is the relay's own work for one tools/call, request
// and result, on the relay's goroutines: alone (no session), and with a
// vanilla hub on a socket (quiet: nothing can fire). It is the CPU a call
// costs the relay, not its latency (scripts/bench-runtime has that).
func BenchmarkRelayCall(b *testing.B) {
	req := func(i int) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/ws/pricing.py"}}}`, i)
	}
	res := func(i int) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"def apply_discount(price, percent):\n    return price * (100 - percent) / 100\n"}]}}`, i)
	}
	b.Run("alone", func(b *testing.B) {
		r := NewRelay(nil, &Classifier{Root: "/ws"}, nil)
		b.ReportAllocs()
		for i := range b.N {
			r.FromClient(req(i))
			r.FromServer(res(i))
		}
	})
	b.Run("hub", func(b *testing.B) {
		_, sock, _ := testhub.Serve(b, "../../examples/tasks/py-discount", policy.Vanilla)
		c, err := session.Dial(sock)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		r := NewRelay(c, &Classifier{Root: "/ws"}, nil)
		b.ReportAllocs()
		for i := range b.N {
			r.FromClient(req(i))
			r.FromServer(res(i))
		}
		r.Wait()
	})
}

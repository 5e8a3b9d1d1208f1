package wire

import (
	"testing"

	"github.com/swetouch/swetouch/event"
)

// BenchmarkParseRequest reads a relayed tool call's two lines as the hub
// does: its begin and its end, each unanswered.
func BenchmarkParseRequest(b *testing.B) {
	begin, _ := leanLine(Request{Op: "begin", NoReply: true, Key: "mcp-12", Begin: &Begin{Command: `mcp read_text_file {"path":"/ws/src/discount.py"}`, Source: "mcp"}})
	end, _ := leanLine(Request{Op: "end", NoReply: true, Key: "mcp-12", End: &End{Output: "def discount(p):\n    return p * 0.9\n",
		Events: []event.Event{{Kind: event.Read, Source: "mcp", Actor: event.Agent, Tool: "read_text_file",
			Scopes: []event.Scope{event.FileScope("src/discount.py")}}}}})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ParseRequest(begin); !ok {
			b.Fatal("begin not lean")
		}
		if _, ok := ParseRequest(end); !ok {
			b.Fatal("end not lean")
		}
	}
}

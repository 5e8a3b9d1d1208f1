package wire

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// BenchmarkParseRequest reads a relayed tool call's lines as the hub
// does: a quiet call's begin and end, each unanswered, and a told read of
// a 16 KiB source file (its text escaped on every line), as a relay
// sends it once the result is out.
func BenchmarkParseRequest(b *testing.B) {
	read := []event.Event{{Kind: event.Read, Source: "mcp", Actor: event.Agent, Tool: "read_text_file",
		Scopes: []event.Scope{event.FileScope("src/discount.py")}}}
	begin, _ := leanLine(Request{Op: "begin", NoReply: true, Key: "mcp-12", Begin: &Begin{Command: `mcp read_text_file {"path":"/ws/src/discount.py"}`, Source: "mcp"}})
	end, _ := leanLine(Request{Op: "end", NoReply: true, Key: "mcp-12", End: &End{Output: "def discount(p):\n    return p * 0.9\n", Events: read}})
	var src strings.Builder
	for i := 0; src.Len() < 16<<10; i++ {
		fmt.Fprintf(&src, "def f%d(x):\n    return x * %d  # \"scaled\"\n", i, i)
	}
	told, _ := leanLine(Request{Op: "end", NoReply: true, Begin: &Begin{Command: `mcp read_text_file {"path":"/ws/src/big.py"}`, Source: "mcp"},
		End: &End{Output: src.String(), Events: read}})
	b.Run("quiet", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := ParseRequest(begin); !ok {
				b.Fatal("begin not lean")
			}
			if _, ok := ParseRequest(end); !ok {
				b.Fatal("end not lean")
			}
		}
	})
	b.Run("told-16KiB", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(told)))
		for b.Loop() {
			if _, ok := ParseRequest(told); !ok {
				b.Fatal("told read not lean")
			}
		}
	})
}

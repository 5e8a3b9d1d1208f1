package layers

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryModules: the binaries link only the modules they need. mcp-go
// (with jsonschema-go, cast and uritemplate) is the tests' MCP peer and
// gonum was one quantile: neither may come back into a binary through an
// import of a runtime package.
func TestBinaryModules(t *testing.T) {
	const mod = "github.com/swetouch/swetouch/"
	banned := []string{"github.com/mark3labs/mcp-go", "github.com/google/jsonschema-go", "github.com/spf13/cast",
		"github.com/yosida95/uritemplate/v3", "gonum.org/v1/gonum", "github.com/coder/acp-go-sdk"}
	for _, cmd := range []string{"cmd/swetouch", "cmd/swetouch-shim"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}} {{end}}{{.ImportPath}}", mod+cmd).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", cmd, err)
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			for _, b := range banned {
				if len(f) == 2 && f[0] == b {
					t.Errorf("%s links %s (package %s)", cmd, b, f[1])
				}
			}
		}
	}
}

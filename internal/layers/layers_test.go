// Package layers holds the test of the package layering: which of the
// module's packages each may import, as Go's own go/build/deps_test.go
// keeps it, so the picture in docs/architecture.md cannot rot.
package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/swetouch/swetouch/"

// The layers, bottom up. Each package may import what its rule names
// (a name ending in "/..." is a folder of packages), and nothing else of
// the module's.
var (
	// utilities: no domain knowledge, each a small job
	utils = []string{"internal/fastjson", "internal/rawfd", "internal/safefile", "internal/atomicfile",
		"internal/envlist", "internal/jsonerr", "internal/linediff", "internal/baseline", "internal/gocache"}
	// the vocabulary and the two files a run writes
	vocab = []string{"event", "trajectory", "result"}
	// leaves: each one job over the vocabulary
	leaves = []string{"patch", "shell", "watch", "task", "sandbox", "audit", "stats", "policy"}
)

func join(groups ...[]string) []string { return slices.Concat(groups...) }

// allowed is each package's rule.
var allowed = map[string][]string{
	"internal/fastjson": nil, "internal/rawfd": nil, "internal/safefile": nil, "internal/atomicfile": nil,
	"internal/envlist": nil, "internal/jsonerr": nil, "internal/linediff": nil,
	"internal/baseline":        utils,
	"internal/gocache":         utils,
	"internal/gocache/serve":   utils,
	"event":                    utils,
	"trajectory":               join(utils, []string{"event"}),
	"result":                   join(utils, []string{"event"}),
	"patch":                    utils,
	"shell":                    join(utils, vocab),
	"watch":                    utils,
	"stats":                    nil,
	"sandbox":                  join(utils, vocab),
	"task":                     join(utils, vocab, []string{"patch", "sandbox"}),
	"policy":                   join(utils, vocab, []string{"patch", "task"}),
	"audit":                    join(utils, vocab, []string{"patch"}),
	"audit/internal/stdlibgen": nil,
	"audit/rubric":             join(utils, vocab, leaves, []string{"user"}),
	// the User seam and its kinds
	"user":              join(utils, vocab, leaves),
	"user/conversation": join(utils, vocab, leaves, []string{"user"}),
	// the agents, one file each, and the scripted ones
	"agents":          join(utils, vocab, []string{"sandbox"}),
	"agents/scripted": join(utils, vocab, []string{"agents"}),
	// the hub and its protocol; the clients that speak it
	"session/wire":    join(utils, vocab),
	"session":         join(utils, vocab, leaves, []string{"user", "session/wire"}),
	"shim":            join(utils, []string{"session/wire"}),
	"shim/persistent": join(utils, []string{"session/wire", "shim"}),
	"proxy":           utils,
	"proxy/mcp":       join(utils, vocab, leaves, []string{"proxy", "session", "session/wire"}),
	"proxy/acp":       join(utils, vocab, leaves, []string{"proxy", "session", "session/wire"}),
	// one trial; recorded runs; the scripted model
	"run":         join(utils, vocab, leaves, []string{"agents", "user", "session", "session/wire", "shim"}),
	"replay":      join(utils, vocab, leaves),
	"container":   join(utils, vocab, leaves),
	"swebench":    utils,
	"modelserver": join(utils, vocab, []string{"agents"}),
	// many trials, and what is made of them
	"score":    join(utils, vocab, []string{"stats"}),
	"report":   join(utils, vocab, []string{"stats", "score", "analyze"}),
	"analyze":  join(utils, vocab, []string{"stats", "score"}),
	"eval":     join(utils, vocab, leaves, []string{"agents", "user", "run"}),
	"author":   join(utils, vocab, leaves, []string{"agents", "run"}),
	"cascade":  join(utils, vocab, leaves),
	"examples": nil,
	"demo":     join(utils, vocab, leaves, []string{"examples", "agents", "agents/...", "user", "user/conversation", "run", "score", "report"}),
	// tests' support: never imported by the runtime
	"internal/testsupport":           nil,
	"internal/testsupport/testbin":   join(utils, []string{"sandbox", "internal/testsupport"}),
	"internal/testsupport/devdata":   []string{"internal/testsupport"},
	"internal/testsupport/jsoncheck": nil,
	"internal/testsupport/rawhttp":   nil,
	"session/sessiontest":            join(utils, vocab, leaves, []string{"user", "session", "session/wire", "run"}),
	"internal/layers":                nil,
	"e2e":                            nil,
	"e2e/redteam":                    nil,
	"integrations/harbor":            nil,
	"e2e/kube":                       nil,
}

// top may import any of the module's packages: the commands and the
// bench tools.
var top = []string{"cmd/", "scripts/"}

// TestLayers: every package has a rule, and imports only what it allows
// (tests aside); no runtime package imports the tests' support.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, _ := strings.CutPrefix(f[0], mod)
		if slices.ContainsFunc(top, func(p string) bool { return strings.HasPrefix(pkg, p) }) {
			continue
		}
		rule, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s has no rule in internal/layers: place it in a layer", pkg)
			continue
		}
		for _, imp := range f[1:] {
			dep, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			if !permits(rule, dep) {
				t.Errorf("%s imports %s, which its layer does not allow", pkg, dep)
			}
		}
	}
}

func permits(rule []string, dep string) bool {
	for _, r := range rule {
		if r == dep || strings.HasSuffix(r, "/...") && strings.HasPrefix(dep, strings.TrimSuffix(r, "...")) {
			return true
		}
	}
	return false
}

// TestLeavesStayLeaves: whatever they import, the vocabulary and the
// leaves never reach an adapter, the hub, the shim, the agents, the user,
// a trial or anything made of trials.
func TestLeavesStayLeaves(t *testing.T) {
	forbidden := []string{"session", "proxy", "shim", "agents", "user", "run", "score", "eval", "report", "author", "examples", "demo", "replay", "modelserver"}
	for _, leaf := range join(vocab, leaves) {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+leaf).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", leaf, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			rest, ok := strings.CutPrefix(dep, mod)
			if !ok {
				continue
			}
			for _, f := range forbidden {
				if rest == f || strings.HasPrefix(rest, f+"/") {
					t.Errorf("%s depends on %s", leaf, rest)
				}
			}
		}
	}
}

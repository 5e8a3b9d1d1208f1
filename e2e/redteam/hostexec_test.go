package redteam

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostExec are the places swetouch starts a program on the host, each
// with why nothing the agent wrote is interpreted there
// (docs/isolation.md, "Nothing the agent wrote runs on the host"). A new
// exec.Command fails TestHostExecReviewed until it is added here with its
// reason: one that runs git, a shell, Python or any tool over the
// workspace (whose configuration, attributes, hooks and modules are the
// agent's) belongs in a sandbox instead.
var hostExec = map[string]string{
	"agents/codex.go:codexCatalog":                      "codex's own model list, in no workspace",
	"audit/internal/stdlibgen/main.go:main":             "go generate's python3 listing its standard library, in no workspace",
	"cmd/swetouch/convertcmd.go:testResults":            "the task's reference solution on a fresh copy of the task's code: nothing of an agent's",
	"cmd/swetouch/relaycmd.go:peerCommand":              "the in-place relay's peer, started by the editor's command line (out of scope: docs/isolation.md)",
	"agents/scripted/scripted.go:runSteps":              "the scripted agent's own commands, run by the agent inside its sandbox",
	"internal/testsupport/devdata/checkout.go:Checkout": "git over a mirror's git directory (--git-dir), never a workspace",
	"internal/testsupport/devdata/devdata.go:ReadFile":  "git over a mirror's git directory (--git-dir), never a workspace",
	"internal/gocache/gocache.go:hostCache":             "go env GOCACHE, in no workspace",
	"internal/testsupport/testbin/testbin.go:Dir":       "go build of swetouch itself, for tests",
	"replay/agent.go:runCommand":                        "a replayed agent's command, run as the agent inside its sandbox",
	"sandbox/check.go:Check":                            "bwrap's own check, in no workspace",
	"sandbox/sandbox.go:Command":                        "bwrap, which runs the sandboxed command",
	"run/run.go:Workspace":                              "git init of the task's code before any agent runs, with the task's content only",
	"run/turns.go:runAgent":                             "the agent, wrapped in the sandbox by agentProcess",
	"swebench/taskdir.go:archive":                       "git archive of the user's source repository at a dataset's base commit (--git-dir, writing a tree), before any agent; tar extracting that tree",
	"cmd/swetouch/imagescmd.go:imagesInsideCmd":         "inside the task's container, before any agent: starts swetouch run itself (the trial), which sandboxes the agent",
	"container/base.go:Rootfs":                          "debootstrap and tar of a fresh Debian root, once, before any task or agent",
	"cascade/git.go:run":                                "git over the user's source repository's history (cascades --repo), with its configuration's programs off, before any task or agent: never a workspace",
	"container/history.go:git":                          "git over the user's source repository or the image's checkout before the agent starts (pruning its history), never a workspace an agent wrote",
	"container/history.go:gitOutput":                    "the same, reading a ref or an object list",
	"container/runtime.go:Command":                      "podman or docker starting, building or removing a container: the agent runs inside it, sandboxed again",
	"shim/persistent/persistent.go:Start":               "the agent's shell, inside its sandbox",
	"shim/shim.go:Run":                                  "the agent's command, from the shim inside its sandbox",
	"shim/scriptrun.go:RunScript":                       "the agent's script, from the shim inside its sandbox",
	"task/solution.go:RunSolution":                      "the task's reference solution, in the verifier's sandbox (unsandboxed only with --no-sandbox): the gate runs it on a generator's edit",
	"task/verify.go:verify":                             "test.sh, in the verifier's sandbox (unsandboxed only with --no-sandbox)",
}

// TestHostExecReviewed lists every exec.Command and exec.CommandContext
// in swetouch's code (tests and scripts/ aside) by file and function, and
// fails on one not reviewed in hostExec, and on an entry whose call is
// gone.
func TestHostExecReviewed(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "scripts" || rel == ".git" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "exec" && (sel.Sel.Name == "Command" || sel.Sel.Name == "CommandContext") {
					key := rel + ":" + fn.Name.Name
					seen[key] = true
					if _, ok := hostExec[key]; !ok {
						t.Errorf("%s: %s starts a program on the host, not reviewed: add it to hostExec with why nothing the agent wrote is interpreted there (or run it sandboxed)", fset.Position(call.Pos()), key)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var gone []string
	for k := range hostExec {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	slices.Sort(gone)
	for _, k := range gone {
		t.Errorf("hostExec names %s, which starts nothing any more: remove it", k)
	}
}

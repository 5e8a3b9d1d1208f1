package e2e_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// mcpScript reads the region through the filesystem server's
// read_text_file, under whatever name the agent gives MCP tools.
const mcpScript = `{"turns": [
 {"calls": [{"name": "@tool:read_text_file", "args": {"path": "pricing.py", "head": 6}}]},
 {"text": "I read the file."}
]}`

// TestMCPDelivery: each real agent, given the reference filesystem server
// with `--mcp` (as `swetouch run --agent NAME --mcp FILE` gives it), in
// the sandbox where it can run, reads the region through the server's
// tool: the Counter-Edit lands, and the user's message is in the very
// next request the model receives. result.json counts it delivered only
// then, and the trajectory holds the MCP read with its lines.
func TestMCPDelivery(t *testing.T) {
	testsupport.Slow(t)
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	fs, err := agents.FindAgent("mcp-server-filesystem")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "the MCP filesystem server is not installed: %v", err)
	}
	for _, a := range realAgents(t) {
		if a.MCP == nil {
			continue // it takes no MCP servers
		}
		t.Run(a.Name, func(t *testing.T) {
			mcpSession(t, shimDir, a.Name, []agents.MCPServer{{Name: "fs", Command: fs, Args: []string{"{workspace}"}}})
		})
	}
}

func mcpSession(t *testing.T, shimDir, agent string, servers []agents.MCPServer) {
	p, bin, err := agents.Find(agent)
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "%s is not installed: %v", agent, err)
	}
	s, err := modelserver.ParseScript([]byte(mcpScript), "mcp.script.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.NewServer(s, nil)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
	recs, _ := task.LoadRecords(filepath.Join(examplesDir, "tasks", "py-discount", "records.jsonl"))
	swetouch := filepath.Join(shimDir, "swetouch")
	scratch := t.TempDir()
	st, err := p.Start(agents.Launch{Bin: bin, ModelURL: ts.URL, Swetouch: swetouch, Scratch: scratch, MCP: servers})
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxed(t, swetouch)
	out := t.TempDir()
	res, err := run.Trial(context.Background(), run.Config{
		Task: tk, Record: recs[0], Condition: policy.CounterEdit, Out: out, Shim: filepath.Join(shimDir, "swetouch-shim"),
		Agent: st, Sandbox: sb, Scratch: []string{scratch}, Stderr: testWriter{t}, ModelURL: ts.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, e := range srv.Exchanges() {
		if e.Turn == 0 {
			tools = offered(e.Request)
			if os.Getenv("DUMP") != "" {
				os.WriteFile(os.Getenv("DUMP"), e.Request, 0o644)
			}
		}
	}
	if srv.Turns() != len(s.Turns) {
		t.Fatalf("agent exit %d after %d of %d scripted turns; it offered %v", res.AgentExit, srv.Turns(), len(s.Turns), tools)
	}
	tr, err := trajectory.ReadFile(filepath.Join(out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var read bool
	for _, ev := range tr.Events {
		if ev.Kind == event.Read && ev.Source == "mcp" && len(ev.Scopes) > 0 && ev.Scopes[0] == event.LineScope("pricing.py", 1, 6) {
			read = true
		}
	}
	if !read || res.Applied != 1 {
		t.Fatalf("the MCP read of lines 1-6 recorded %v, Counter-Edits applied %d; offered %v", read, res.Applied, tools)
	}
	// the request after the tool's result is the proof
	var reached bool
	for _, e := range srv.Exchanges() {
		if e.Turn == 1 {
			reached = strings.Contains(string(e.Request), "clamped") && strings.Contains(string(e.Request), "user-message")
		}
	}
	if !reached {
		t.Errorf("the model's request after the MCP read does not carry the user's message")
	}
	if res.Delivered != 1 || res.Unconfirmed != 0 {
		t.Errorf("result.json: delivered %d, unconfirmed %d", res.Delivered, res.Unconfirmed)
	}
}

// offered are the tool names a recorded request offers, for a failure's
// message.
func offered(req json.RawMessage) []string {
	var r struct {
		Tools []struct {
			Name                 string `json:"name"`
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(req, &r)
	var out []string
	for _, t := range r.Tools {
		if t.Name != "" {
			out = append(out, t.Name)
		}
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
	}
	return out
}

// testWriter sends the agent's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/policy"
)

// sampler answers the server's sampling requests, counting them.
type sampler struct{ n atomic.Int32 }

func (s *sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	s.n.Add(1)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled answer")},
		Model:           "test-model", StopReason: "endTurn",
	}, nil
}

// TestEverythingRelayed: the reference "everything" server's protocol
// features survive the relay — progress notifications tied to the
// request's _meta token, a server-to-client sampling request and its
// answer, and logging notifications — exactly as directly.
func TestEverythingRelayed(t *testing.T) {
	srv := serverBin(t, "mcp-server-everything")
	ws, sock, _ := hubFor(t, policy.Vanilla)
	type outcome struct {
		progress, samples int32
		sampled, echoed   string
	}
	run := func(through bool) outcome {
		cmd, args := srv, []string{}
		if through {
			cmd, args = filepath.Join(binDir, "swetouch"), []string{"mcp", "--session", sock, "--root", ws, "--", srv}
		}
		tr := transport.NewStdio(cmd, os.Environ(), args...)
		s := &sampler{}
		c := client.NewClient(tr, client.WithSamplingHandler(s))
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var progress atomic.Int32
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == "notifications/progress" {
				progress.Add(1)
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = "2025-06-18"
		init.Params.ClientInfo = mcp.Implementation{Name: "swetouch-test", Version: "1"}
		init.Params.Capabilities.Sampling = &mcp.SamplingCapability{}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		var o outcome
		long := mcp.CallToolRequest{}
		long.Params.Name = "trigger-long-running-operation"
		long.Params.Arguments = map[string]any{"duration": 1, "steps": 3}
		long.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
		if _, err := c.CallTool(ctx, long); err != nil {
			t.Fatalf("long-running: %v", err)
		}
		samp := mcp.CallToolRequest{}
		samp.Params.Name = "trigger-sampling-request"
		samp.Params.Arguments = map[string]any{"prompt": "hello", "maxTokens": 10}
		res, err := c.CallTool(ctx, samp)
		if err != nil {
			t.Fatalf("sampling: %v", err)
		}
		for _, ct := range res.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				o.sampled += tc.Text
			}
		}
		echo := mcp.CallToolRequest{}
		echo.Params.Name, echo.Params.Arguments = "echo", map[string]any{"message": "héllo\u2028 \"quoted\""}
		res, err = c.CallTool(ctx, echo)
		if err != nil {
			t.Fatal(err)
		}
		o.echoed = res.Content[0].(mcp.TextContent).Text
		o.progress, o.samples = progress.Load(), s.n.Load()
		return o
	}
	direct, relayed := run(false), run(true)
	if direct.progress == 0 || direct.samples != 1 {
		t.Fatalf("the direct session is not what the test expects: %+v", direct)
	}
	// how many progress notifications land before the result is a race in
	// the server (the last one and the result leave together): compare
	// that some came
	if relayed.progress == 0 || relayed.samples != direct.samples || relayed.echoed != direct.echoed ||
		!strings.Contains(relayed.sampled, "sampled answer") || relayed.sampled != direct.sampled {
		t.Errorf("through the relay %+v, direct %+v", relayed, direct)
	}
}

// TestTypeScriptClient: the official TypeScript SDK client sees the same
// session with the everything server directly and through the relay:
// tool list, progress, unicode, structured results, errors.
func TestTypeScriptClient(t *testing.T) {
	srv := serverBin(t, "mcp-server-everything")
	node, err := exec.LookPath("node")
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "node is not installed")
	}
	sdk := filepath.Join(filepath.Dir(filepath.Dir(srv)), "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(sdk); err != nil {
		testsupport.Missing(t, testsupport.Agents, "the TypeScript SDK is not installed beside the servers: %v", err)
	}
	ws, sock, _ := hubFor(t, policy.Vanilla)
	run := func(cmd ...string) string {
		c := exec.Command(node, append([]string{"testdata/ts-client.mjs", sdk}, cmd...)...)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
		return string(out)
	}
	direct := run(srv)
	relayed := run(filepath.Join(binDir, "swetouch"), "mcp", "--session", sock, "--root", ws, "--", srv)
	if !strings.Contains(direct, `"progress":true`) {
		t.Fatalf("the direct session is not what the test expects:\n%s", direct)
	}
	if direct != relayed {
		t.Errorf("sessions differ:\ndirect:\n%s\nthrough the relay:\n%s", direct, relayed)
	}
}

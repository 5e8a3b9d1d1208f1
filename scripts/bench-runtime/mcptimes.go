// Timing MCP calls through the relays in turns: the reference clients,
// the calls, and the medians of what each way added.

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// stdioRelay is the command of the stdio relay of the build in dir over
// ws, reporting to the hub at sock ("": no session), in front of the
// filesystem server fs.
func stdioRelay(dir, ws, sock, fs string) []string {
	args := []string{filepath.Join(dir, "swetouch"), "mcp", "--root", ws}
	if sock != "" {
		args = append(args, "--session", sock)
	}
	return append(args, "--", fs, ws)
}

// readRequest writes the 16 KiB source file into ws and is its read.
func readRequest(ws string) (mcp.CallToolRequest, error) {
	file := filepath.Join(ws, readFile)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "read_text_file", map[string]any{"path": file}
	return req, os.WriteFile(file, sourceText(16<<10), 0o644)
}

// sourceText is n bytes of Python-like source: short lines, each a
// newline the JSON of a read escapes, as a source file's are.
func sourceText(n int) []byte {
	var b []byte
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "def price_%d(amount, rate=0.%02d):\n", i, i%100)
		b = fmt.Appendf(b, "    \"\"\"Return amount at rate %d.\"\"\"\n    return round(amount * (1 - rate), 2)\n\n", i)
	}
	return b[:n]
}

// listDirs is the stdio part's call: one whose result is a line.
func listDirs() mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "list_allowed_directories", map[string]any{}
	return req
}

// mcpTimes times n tools/call round trips to the filesystem server
// through each way of starting it (a command line each), alternating, as
// alternate reports them, and gives the CPU per call of each way's own
// process (0 for the first, the server itself), then of each of also's.
func mcpTimes(n int, ws string, req mcp.CallToolRequest, also []int, ways ...[]string) ([]time.Duration, []float64, [][2]float64, error) {
	var clients []*client.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var pids []int
	for i, w := range ways {
		before := childPids()
		c, err := client.NewStdioMCPClient(w[0], os.Environ(), w[1:]...)
		if err != nil {
			return nil, nil, nil, err
		}
		clients = append(clients, c)
		if err := initialize(c, mcp.LATEST_PROTOCOL_VERSION); err != nil {
			return nil, nil, nil, err
		}
		if i == 0 {
			pids = append(pids, 0)
		} else {
			pids = append(pids, newChild(before))
		}
	}
	var m cpuMeter
	m.start(append(pids, also...)...)
	t, err := alternate(n, req, clients...)
	return t, m.perCall(n), m.switchesPerCall(n), err
}

// initialize opens an MCP session on c.
func initialize(c *client.Client, version string) error {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	_, err := c.Initialize(context.Background(), init)
	return err
}

// alternate times n round trips of req through each client, taking turns
// (so all see the machine in the same state), and returns their medians.
func alternate(n int, req mcp.CallToolRequest, clients ...*client.Client) ([]time.Duration, error) {
	return inTurns(n, len(clients), func(k int) (time.Duration, error) {
		t0 := time.Now()
		_, err := clients[k].CallTool(context.Background(), req)
		return time.Since(t0), err
	})
}

// inTurns times n rounds of call, once for each of ways ways per round,
// in an order shuffled each round (seeded, so every run takes the same
// orders): what a way leaves running after its call (a hub recording it)
// then falls on every other way alike, not on the one after it. It
// returns addedTimes of the rounds.
func inTurns(n, ways int, call func(way int) (time.Duration, error)) ([]time.Duration, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	order := make([]int, ways)
	for k := range order {
		order[k] = k
	}
	times := make([][]time.Duration, ways)
	for i := 0; i < n; i++ {
		rng.Shuffle(ways, func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, k := range order {
			d, err := call(k)
			if err != nil {
				return nil, err
			}
			times[k] = append(times[k], d)
		}
	}
	return addedTimes(times), nil
}

// addedTimes is the first way's median, then each other's added time:
// the median of its call less the first way's call in the same round (see
// paired).
func addedTimes(times [][]time.Duration) []time.Duration {
	out := []time.Duration{median(append([]time.Duration(nil), times[0]...))}
	for k := 1; k < len(times); k++ {
		d := make([]time.Duration, len(times[0]))
		for i := range d {
			d[i] = times[k][i] - times[0][i]
		}
		out = append(out, median(d))
	}
	return out
}

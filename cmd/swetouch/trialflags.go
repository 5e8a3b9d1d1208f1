package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/sandbox"
)

// agentTimeoutFlag adds --agent-timeout.
func agentTimeoutFlag(c *cobra.Command, v *time.Duration) {
	c.Flags().DurationVar(v, "agent-timeout", 0, "how long the agent may run (e.g. 30m) before its sandbox is killed whole and the tests run on what the workspace holds (default: the task's agent.timeout_sec, else 1h; negative: none)")
}

// networkFlag adds --network: what a sandboxed agent reaches.
func networkFlag(c *cobra.Command, v *string) {
	c.Flags().StringVar(v, "network", "isolated", "the sandboxed agent's network: isolated (a namespace of its own; its --model-url, on this machine's loopback, relayed in and nothing else) or host (the host's: every port, every trial's sockets, the internet; result.json says so)")
}

// hostNetwork reads --network for a run whose agent talks to modelURL
// ("" for its own provider, or none; upstream: a recorder swetouch
// starts): whether it gets the host's network, or an error saying how to
// run it isolated.
func hostNetwork(mode, modelURL string, preset, upstream bool) (bool, error) {
	switch mode {
	case "host":
		return true, nil
	case "isolated", "":
	default:
		return false, badInput("--network: want isolated or host, got %q", mode)
	}
	if _, err := sandbox.ModelNetwork(modelURL); err != nil {
		return false, badInput("--model-url: %v; give --model-upstream %s (swetouch relays and records it from the loopback), or --network host", err, modelURL)
	}
	if err := sandbox.CanRelay(); err != nil && (modelURL != "" || upstream) {
		return false, badInput("%v; or give --network host", err)
	}
	if preset && modelURL == "" {
		return false, badInput("an agent preset with no --model-url talks to its own provider, which an isolated sandbox cannot reach: give --model-upstream URL (relayed and recorded) or --model-url, or --network host")
	}
	return false, nil
}

// limitFlags are a trial's sandbox limits: --pids-limit, --memory-limit.
type limitFlags struct {
	pids   int64
	memory string
}

func (l *limitFlags) add(c *cobra.Command) {
	c.Flags().Int64Var(&l.pids, "pids-limit", sandbox.DefaultLimits.Pids, "processes and threads each sandbox (the agent's, the tests') may have together (0: no limit)")
	c.Flags().StringVar(&l.memory, "memory-limit", "4G", "memory each sandbox may hold, its /tmp included, e.g. 512M, 8G (0: no limit); past it the kernel kills a process inside")
}

// set gives the runner (nil: no sandbox) the limits.
func (l *limitFlags) set(r *sandbox.Runner) error {
	mem, err := parseBytes(l.memory)
	if err != nil {
		return badInput("--memory-limit: %v", err)
	}
	if l.pids < 0 {
		return badInput("--pids-limit: want 0 or more, got %d", l.pids)
	}
	if r != nil {
		r.Limits = sandbox.Limits{Pids: l.pids, Memory: mem}
	}
	return nil
}

// parseBytes reads a size: a number of bytes, or of K, M, G or T (1024s).
func parseBytes(s string) (int64, error) {
	n, unit := strings.TrimSpace(s), int64(1)
	for i, u := range []string{"K", "M", "G", "T"} {
		if v, ok := strings.CutSuffix(strings.ToUpper(n), u); ok {
			n, unit = v, int64(1)<<(10*(i+1))
			break
		}
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a size such as 512M or 4G, got %q", s)
	}
	return int64(v * float64(unit)), nil
}

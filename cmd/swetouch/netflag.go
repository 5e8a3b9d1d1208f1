package main

import (
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
// ("" for its own provider, or none): whether it gets the host's
// network, or an error saying how to run it isolated.
func hostNetwork(mode, modelURL string, preset bool) (bool, error) {
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
	if preset && modelURL == "" {
		return false, badInput("an agent preset with no --model-url talks to its own provider, which an isolated sandbox cannot reach: give --model-upstream URL (relayed and recorded) or --model-url, or --network host")
	}
	return false, nil
}

package agents

import "strings"

// Where the sandbox puts the shim at /bin/sh and /bin/bash (issue 52),
// the shells an agent starts for itself by absolute path reach the hub
// too. These name those that are no model's action.

// codexOwn: every shell the shim sees Codex start is its own. Codex runs
// each of the model's commands in /bin/bash (`bash -lc CMD`, after
// sourcing its shell snapshot once that is written, bare before) and
// reports the command in its event stream, which the preset's reader
// records as the step, with the command as the model wrote it; its other
// shells are its own bookkeeping (the snapshot, a probe of .bashrc). So
// the shim's record of each is kept without a step, and a read is not
// counted twice (TestAgents/codex saw the model's first command twice
// when Codex ran it before its snapshot was ready).
func codexOwn(string) bool { return true }

// claudeOwn: Claude Code's start-up, a bare `env` and the login shell
// that writes its shell snapshot (SNAPSHOT_FILE=… then the dump).
func claudeOwn(command string) bool {
	return command == "env" || strings.HasPrefix(command, "SNAPSHOT_FILE=") && strings.Contains(command, "shell-snapshots/snapshot-")
}

// geminiProbes are what the Gemini CLI runs through /bin/sh at start-up
// to describe the machine (its system-information library).
var geminiProbes = []string{"lspci", "clinfo", "xdpyinfo", "xrandr"}

// geminiOwn: the Gemini CLI's start-up probes.
func geminiOwn(command string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	for _, p := range geminiProbes {
		if first == p {
			return true
		}
	}
	return false
}

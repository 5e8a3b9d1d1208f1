package agents

import "strings"

// Where the sandbox puts the shim at /bin/sh and /bin/bash (issue 52),
// the shells an agent starts for itself by absolute path reach the hub
// too. These name those that are no model's action.

// codexOwn: Codex runs each command in /bin/bash after sourcing its shell
// snapshot, and reports the command itself in its event stream, which the
// preset's reader records as the step (with the command as the model
// wrote it); the shim's record of the same run, and of the snapshot's
// making, are its own.
func codexOwn(command string) bool {
	return strings.HasPrefix(command, "__CODEX_SNAPSHOT_OVERRIDE") || strings.HasPrefix(command, codexLoginProbe) ||
		strings.HasPrefix(command, "set -e; . ") && strings.Contains(command, "shell_snapshots/")
}

// claudeOwn: Claude Code's start-up, a bare `env` and the login shell
// that writes its shell snapshot (SNAPSHOT_FILE=… then the dump).
func claudeOwn(command string) bool {
	return command == "env" || strings.HasPrefix(command, "SNAPSHOT_FILE=") && strings.Contains(command, "shell-snapshots/snapshot-")
}

// codexLoginProbe opens the login shell Codex starts to learn its
// user's shell (bash -lc, which the shim records since issue 52).
const codexLoginProbe = `if [ -z "${BASH_ENV-}" ] && [ -n "${HOME-}" ] && [ -r "$HOME/.bashrc" ]; then`

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

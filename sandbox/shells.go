package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// Shells puts the shim in place of the system's shells inside a sandbox,
// so that an agent that starts /bin/sh or /bin/bash by absolute path
// (Python's shell=True, a #!/bin/sh script, mini-swe-agent, SWE-agent)
// passes it as one that finds bash on PATH does. The real shells stay
// reachable at Real, a read-only folder of their own that no program
// looks in but the shim.
type Shells struct {
	// Shim is the host's shim executable, bound over each shell.
	Shim string
	// Real is the folder inside the sandbox that holds the real shells
	// by name (sh, bash, dash, rbash), made there; its parent must be
	// one the sandbox makes (/run).
	Real string
}

// ShellPaths are the absolute paths a program starts a shell by: the
// ones the shim stands at in a sandbox, and the ones it cannot see
// without one.
var ShellPaths = []string{"/bin/sh", "/bin/bash", "/bin/dash", "/bin/rbash",
	"/usr/bin/sh", "/usr/bin/bash", "/usr/bin/dash", "/usr/bin/rbash"}

// shellNames are the programs the shim can stand in for: a path whose
// file is another program (busybox, which is every applet at once) is
// left alone.
var shellNames = []string{"sh", "bash", "dash", "rbash"}

// ShellFiles are the host's shells as files: for each of ShellPaths
// that exists, the file it resolves to (Debian's /bin is a link to
// /usr/bin, and its sh a link to dash), each once, and only those that
// are a shell by name. covered names the paths those files stand for;
// uncovered the ones that exist but are no shell the shim knows.
func ShellFiles() (files, covered, uncovered []string) {
	for _, p := range ShellPaths {
		f, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if info, err := os.Stat(f); err != nil || !info.Mode().IsRegular() {
			continue
		}
		if !slices.Contains(shellNames, filepath.Base(f)) {
			uncovered = append(uncovered, p)
			continue
		}
		covered = append(covered, p)
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files, covered, uncovered
}

// UnseenShells are the shell paths a run's agent can start without the
// shim seeing them: every one the host has when there is no sandbox
// (the shim is then only first on PATH), and in a sandbox those the shim
// cannot stand in for.
func UnseenShells(sandboxed bool) []string {
	_, covered, uncovered := ShellFiles()
	if sandboxed {
		return uncovered
	}
	return append(covered, uncovered...)
}

// args are bwrap's arguments for the shells: the real ones bound by name
// in a read-only folder of their own (a tmpfs mounted there: the agent
// can neither add a file to it nor move it away, a mount point), then
// shim over each; and the sh
// a sandbox's start script runs in, the real one when the shim stands at
// /bin/sh (the script is swetouch's, not the agent's, and must not reach
// the hub).
func (s Shells) args(shim string) ([]string, string) {
	if shim == "" || s.Real == "" {
		return nil, "/bin/sh"
	}
	files, _, _ := ShellFiles()
	if len(files) == 0 {
		return nil, "/bin/sh"
	}
	a := []string{"--tmpfs", s.Real}
	for _, name := range shellNames {
		for _, dir := range []string{"/usr/bin", "/bin"} {
			f, err := filepath.EvalSymlinks(filepath.Join(dir, name))
			if err != nil || !slices.Contains(shellNames, filepath.Base(f)) {
				continue
			}
			a = append(a, "--ro-bind", f, filepath.Join(s.Real, name))
			break
		}
	}
	a = append(a, "--remount-ro", s.Real)
	for _, f := range files {
		a = append(a, "--ro-bind", shim, f)
	}
	return a, filepath.Join(s.Real, "sh")
}

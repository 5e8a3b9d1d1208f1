package shim

import (
	"os"

	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A script invocation: a shell started on a file (bash do.sh, a #!/bin/sh
// script the kernel hands to /bin/sh) or on a regular file as its stdin
// (bash -s < do.sh), rather than on a -c command.
type script struct {
	opts  []string // the shell's options before it, passed on
	path  string   // the script file; "" when read from stdin
	stdin bool
	args  []string // its positional parameters
	// agent: the script is the agent itself (started by the sandbox's
	// pid 1); an exec statement hands the agent's shells back to the shim
	agent bool
	// command: the script is a -c command's text (the agent started as
	// `bash -c SCRIPT`), zero its $0
	command bool
	zero    string
}

// commandScript is the -c invocation args as a script: the options but
// -c, the command's text, its $0 and its parameters.
func commandScript(argv0 string, args []string) (script, string, bool) {
	text, ok := commandOf(args)
	if !ok {
		return script{}, "", false
	}
	s := script{command: true, zero: argv0}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c":
		case a == "--" || a == "-":
			s.opts = append(s.opts, a)
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			s.opts = append(s.opts, a, args[i+1])
			i++
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && !strings.HasPrefix(a, "--"):
			if o := strings.ReplaceAll(a, "c", ""); len(o) > 1 {
				s.opts = append(s.opts, o)
			}
		case strings.HasPrefix(a, "--"):
			s.opts = append(s.opts, a)
		default:
			// the command's text, then its $0 and parameters
			if i+1 < len(args) {
				s.zero, s.args = args[i+1], args[i+2:]
			}
			return s, text, true
		}
	}
	return script{}, "", false
}

// scriptOf finds the script of a shell's arguments, bash's rule: the
// first argument after the options. ok is false for anything the shim
// cannot run as a script of steps (a -c command, a login or interactive
// shell, an option it does not know), which pass through as before.
func scriptOf(args []string) (script, bool) {
	var s script
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			if i+1 < len(args) && !s.stdin {
				s.path, s.args = args[i+1], args[i+2:]
			} else {
				s.stdin, s.args = true, args[i+1:]
			}
			return s, true
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			if i+1 >= len(args) {
				return s, false
			}
			s.opts = append(s.opts, a, args[i+1])
			i++
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--posix", "--norc", "--noprofile", "--noediting", "--restricted":
				s.opts = append(s.opts, a)
			default:
				return s, false // --login, --rcfile FILE, --debugger, ...
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if strings.ContainsAny(a[1:], "cilDO") {
				return s, false
			}
			if strings.ContainsRune(a[1:], 's') {
				// -s: the script is stdin, the rest its parameters
				s.stdin = true
				if a = strings.ReplaceAll(a, "s", ""); len(a) > 1 {
					s.opts = append(s.opts, a)
				}
				continue
			}
			s.opts = append(s.opts, a)
		default:
			if s.stdin {
				s.args = args[i:]
			} else {
				s.path, s.args = a, args[i+1:]
			}
			return s, true
		}
	}
	s.stdin = true // no script named: bash reads it from stdin
	return s, true
}

// systemDirs hold the system's own scripts (zcat, which, ldd): a tool's
// internals, not the agent's commands.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// agentScript reports whether the script at path is one the agent wrote
// and runs as its own rather than a tool's: a file it could change (in
// the workspace, its /tmp or home; a sandbox shows everything else
// read-only), not under the system directories, and not in a folder on
// PATH (pyenv's shims and libexec, a version manager's bash scripts),
// which the agent reaches as commands. A tool's script passes through as
// before: its internals are no actions of the agent's.
func agentScript(path, pathEnv string) bool {
	return unix.Access(path, unix.W_OK) == nil && !toolScript(path, pathEnv)
}

// toolScript reports whether the script at path is a tool's: under the
// system directories or in a folder on PATH.
func toolScript(path, pathEnv string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return true
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, d := range systemDirs {
		if abs == d || strings.HasPrefix(abs, d+"/") {
			return true
		}
	}
	dir := filepath.Dir(abs)
	for _, p := range filepath.SplitList(pathEnv) {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		if filepath.Clean(p) == dir || filepath.Clean(p) == filepath.Dir(path) {
			return true
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && r == dir {
			return true
		}
	}
	return false
}

// source reads the script's text: its file, or for stdin what is left of
// a regular file from its offset (read at that offset: the descriptor's
// own position is the shell's). ok is false for a pipe or a terminal,
// whose text cannot be read without taking it from the shell.
func (s script) source() ([]byte, bool) {
	if !s.stdin {
		b, err := os.ReadFile(s.path)
		return b, err == nil
	}
	info, err := os.Stdin.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	off, err := os.Stdin.Seek(0, 1)
	if err != nil || off > info.Size() {
		return nil, false
	}
	b := make([]byte, info.Size()-off)
	n, err := os.Stdin.ReadAt(b, off)
	if err != nil && n < len(b) {
		return nil, false
	}
	return b[:n], true
}

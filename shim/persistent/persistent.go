// Package persistent keeps one shell open on a pseudo-terminal for
// harnesses that work that way, with per-command boundaries; it is apart
// from the shim so the shim's binary does not carry it.
package persistent

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/creack/pty"
	"mvdan.cc/sh/v3/syntax"

	"github.com/swetouch/swetouch/session/wire"
	"github.com/swetouch/swetouch/shim"
)

// Shell is a persistent shell on a pseudo-terminal, for harnesses that keep
// one shell open across commands: cd, variables and functions persist.
// Each Run is one command with clear boundaries (a marker the shell prints
// with the exit status and directory), reported to the hub like a -c
// command; messages follow the command's output.
//
// Like any harness of this kind it shares the terminal's input with the
// command: a command that reads stdin must be given its input explicitly.
type Shell struct {
	h      shim.Hub
	cmd    *exec.Cmd
	tty    *os.File
	r      *bufio.Reader
	marker string
	cwd    string
	mu     sync.Mutex
	parser *syntax.Parser
}

// Start starts the real shell (not a login shell, no rc files) in dir.
// h may be nil: then nothing is reported.
func Start(real, dir string, env []string, h shim.Hub) (*Shell, error) {
	nonce := make([]byte, 8)
	rand.Read(nonce)
	p := &Shell{h: h, marker: "__SWETOUCH_" + hex.EncodeToString(nonce) + "__", cwd: dir, parser: syntax.NewParser()}
	p.cmd = exec.Command(real, "--noprofile", "--norc")
	p.cmd.Dir = dir
	p.cmd.Env = append(env, "PS1=", "PS2=", "PROMPT_COMMAND=", "TERM=dumb")
	tty, err := pty.Start(p.cmd)
	if err != nil {
		return nil, err
	}
	p.tty, p.r = tty, bufio.NewReaderSize(tty, 64<<10)
	// no echo, no CR added to output; then wait for the shell to say it
	// is ready, skipping whatever it printed before
	fmt.Fprintf(tty, "stty -echo -onlcr 2>/dev/null; unset PROMPT_COMMAND; PS1=; PS2=; printf '%%s\\n' %s_READY\n", p.marker)
	for {
		l, err := p.r.ReadString('\n')
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("pty shell did not start: %w", err)
		}
		if strings.TrimRight(l, "\r\n") == p.marker+"_READY" {
			return p, nil
		}
	}
}

// Run runs one command in the persistent shell and returns what it
// printed (stdout and stderr, as the terminal shows them) followed by any
// user messages, and its exit status.
func (p *Shell) Run(ctx context.Context, command string) (string, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.parser.Parse(strings.NewReader(command), ""); err != nil {
		// an unfinished command would swallow the end marker
		return "", 2, fmt.Errorf("not a complete command: %w", err)
	}
	id, herr := -1, errors.New("no hub")
	if p.h != nil {
		id, herr = p.h.Begin(wire.Begin{Command: command, Cwd: p.cwd, Source: "shell"})
	}
	fmt.Fprintf(p.tty, "%s\n__swetouch_rc=$?; printf '\\n%s %%d %%s\\n' \"$__swetouch_rc\" \"$PWD\"\n", command, p.marker)
	var out strings.Builder
	status := 0
	for {
		l, err := p.r.ReadString('\n')
		if err != nil {
			return out.String(), -1, fmt.Errorf("pty shell: %w", err)
		}
		if rest, ok := strings.CutPrefix(l, p.marker+" "); ok {
			code, dir, _ := strings.Cut(strings.TrimRight(rest, "\r\n"), " ")
			status, _ = strconv.Atoi(code)
			p.cwd = dir
			break
		}
		out.WriteString(l)
	}
	text := strings.TrimSuffix(out.String(), "\n") // the newline before the marker
	if herr == nil {
		msgs, err := p.h.End(id, wire.End{Exit: status, Output: text})
		if err == nil && len(msgs) > 0 {
			var b strings.Builder
			shim.Deliver(&b, msgs)
			text += b.String()
		}
	}
	return text, status, ctx.Err()
}

// Cwd is the shell's directory after the last command.
func (p *Shell) Cwd() string { return p.cwd }

// Close ends the shell.
func (p *Shell) Close() error {
	p.tty.Close()
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
	p.cmd.Wait()
	return nil
}

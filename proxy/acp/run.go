package acp

import (
	"io"
	"os/exec"

	"github.com/swetouch/swetouch/proxy"
)

// Run starts the agent command with the relay between it and the editor
// on stdin/stdout (its stderr, cwd and environment are as cmd says). When
// the editor closes stdin the agent gets EOF; Run ends when the agent
// exits, with its status.
func Run(cmd *exec.Cmd, stdin io.Reader, stdout io.Writer, opts ...Option) (int, error) {
	in, out, code, err := proxy.StartChild(cmd)
	if err != nil {
		return code, err
	}
	r := NewRelay(in, stdout, opts...)
	go func() {
		proxy.Pipe(r.AgentWriter(), proxy.Pollable(stdin), r.FromEditor)
		in.Close() // the editor hung up: the agent sees EOF
	}()
	proxy.Pipe(r.EditorWriter(), out, r.FromAgent)
	return proxy.ExitStatus(cmd, cmd.Wait())
}

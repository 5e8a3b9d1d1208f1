package acp

import (
	"io"

	"github.com/swetouch/swetouch/proxy"
)

// Run starts the agent command with the relay between it and the editor
// on stdin/stdout (the agent's stderr is passed through). When the editor
// closes stdin the agent gets EOF; Run ends when the agent exits, with its
// status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, opts ...Option) (int, error) {
	cmd, in, out, code, err := proxy.StartChild(args, stderr)
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

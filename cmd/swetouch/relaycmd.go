package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/session"
)

// What `swetouch acp` and `swetouch mcp` share: the workspace, the hub
// they join, the process they stand in front of, and how they end.

// workspaceRoot is --root, else the workspace of the swetouch run whose
// agent started this relay, else the current directory, made absolute.
func workspaceRoot(root string) string {
	if root == "" {
		// a relay the agent of a swetouch run starts is told the workspace
		root = os.Getenv("SWETOUCH_WORKSPACE")
	}
	if root == "" {
		root, _ = os.Getwd()
	}
	abs, _ := filepath.Abs(root)
	return abs
}

// dialHub connects to the hub at sock; without one (no socket, or nothing
// listening, which it says on stderr) the relay relays only.
func dialHub(cmd, sock string, stderr io.Writer) *session.Client {
	if sock == "" {
		return nil
	}
	h, err := session.Dial(sock)
	if err != nil {
		fmt.Fprintf(stderr, "swetouch %s: no session at %s (%v); relaying only\n", cmd, sock, err)
		return nil
	}
	return h
}

// peerCommand is the process a relay stands in front of (an agent, an MCP
// server): when ctx ends (SIGINT or SIGTERM to the relay, the editor
// stopping it) it gets SIGTERM, and 10 s to go.
func peerCommand(ctx context.Context, args []string, stderr io.Writer) *exec.Cmd {
	peer := exec.CommandContext(ctx, args[0], args[1:]...)
	peer.Cancel = func() error { return peer.Process.Signal(syscall.SIGTERM) }
	peer.WaitDelay = 10 * time.Second
	peer.Stderr = stderr
	return peer
}

// end closes a relay's run: an in-place session (own, when there is one)
// writes its files with a note of how the peer (named by peer) ended,
// interrupted when ctx has ended, once the relay's own hub connection
// (which the hub waits for) is closed; then the peer's status becomes the
// relay's.
func end(ctx context.Context, peer string, own *run.InPlace, hub *session.Client, code int, err error) error {
	if hub != nil {
		hub.Close()
	}
	if own != nil {
		note := "done"
		switch {
		case ctx.Err() != nil:
			note = "interrupted"
		case err != nil:
			note = peer + " failed: " + err.Error()
		}
		if ferr := own.Finish(code, note); ferr != nil && err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

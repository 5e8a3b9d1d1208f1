package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/session"
)

// helperHub serves a hub in a process of its own, as `swetouch run` does:
// the agent (here the measuring client) is never in the hub's process, and
// a hub sharing the client's Go runtime would charge its goroutines'
// wake-ups to the client. Args: the workspace, "live" (watching and
// recording, as swetouch run starts it) or "bare" (neither), the shim, and
// the name its profile is written under (-hubprofile). It prints the
// socket and serves until stdin closes.
const helperHub = "__hub"

func hubHelper(args []string) {
	ws, mode, shim, name := args[1], args[2], args[3], args[4]
	if prof := os.Getenv(hubProfileEnv); prof != "" {
		stop, err := startProfile(prof + "." + name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer stop()
	}
	var sock string
	switch mode {
	case "live":
		host, stop, err := recordingHost(ws, shim)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer stop()
		sock = host.Socket
	default:
		bare, err := session.New(ws)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sock = filepath.Join(filepath.Dir(ws), fmt.Sprintf("bare-%d.sock", os.Getpid()))
		l, err := session.ListenUnix(sock) // served as a run serves it
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go bare.ServeUnix(ctx, l)
	}
	fmt.Println(sock)
	io.Copy(io.Discard, os.Stdin)
}

// recordingHost starts the hub as swetouch run has it: watching ws and
// recording its trajectory to a file beside it, outside the watched tree
// (a run's hub writes each event through at once; a recorder into memory
// hid what that costs). stop closes the host and removes the file.
func recordingHost(ws, shim string) (host *run.Host, stop func(), err error) {
	traj, err := os.CreateTemp(filepath.Dir(ws), "trajectory-*.ndjson")
	if err != nil {
		return nil, nil, err
	}
	host, err = run.StartHost(run.HostConfig{Root: ws, Trajectory: traj, Shim: shim, RequireToken: true})
	if err != nil {
		traj.Close()
		os.Remove(traj.Name())
		return nil, nil, err
	}
	return host, func() {
		host.Close("bench done")
		traj.Close()
		os.Remove(traj.Name())
	}, nil
}

// hubProfileEnv names the file prefix under which each hub process
// writes its CPU profile (-hubprofile): FILE.live, FILE.bare, and
// FILE.in-process (the hub of the HTTP relay in the bench's process).
const hubProfileEnv = "SWETOUCH_BENCH_HUB_PROFILE"

// startProfile writes this process's CPU profile to file, sampled at
// 1 kHz: a hub spends some 40 µs of CPU on a call, and the default 100 Hz
// would give a few dozen samples in a run's calls.
func startProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	runtime.SetCPUProfileRate(1000)
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// helperProc is a helper process serving a socket.
type helperProc struct {
	sock string
	pid  int
	stop func() // closes its stdin and waits for it
}

// hubProcess starts helperHub, its profile named as its mode.
func hubProcess(ws, mode, shim string) (*helperProc, error) {
	return namedHub(ws, mode, shim, mode)
}

// namedHub starts helperHub with its profile named name.
func namedHub(ws, mode, shim, name string) (*helperProc, error) {
	return socketHelper("the hub process", helperHub, ws, mode, shim, name)
}

// listenerProcess starts a listener helper (helperListener, helperEcho).
func listenerProcess(kind string) (*helperProc, error) {
	return socketHelper("the listener", kind)
}

// socketHelper starts this program as the helper args name, which prints
// its socket and serves until its stdin closes.
func socketHelper(what string, args ...string) (*helperProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return socketHelperOf(self, what, args...)
}

// socketHelperOf is socketHelper run by the bench binary exe (another
// build's, for -compare).
func socketHelperOf(exe, what string, args ...string) (*helperProc, error) {
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return &helperProc{sock: strings.TrimSpace(line), pid: cmd.Process.Pid, stop: func() { in.Close(); cmd.Wait() }}, nil
}

package shim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/swetouch/swetouch/session/wire"
)

// Env names the environment variables the shim reads.
const (
	EnvSocket = "SWETOUCH_SOCKET"   // the hub's socket; unset = plain bash
	EnvDir    = "SWETOUCH_SHIM_DIR" // the shim directory, skipped when looking for the real shell
	EnvRealSh = "SWETOUCH_REAL_SHELL"
	// EnvInside is set in a command's environment: a shell started
	// within a recorded command is part of it, and runs unrecorded
	EnvInside = "SWETOUCH_SHIM_INSIDE"
	// EnvToolPID marks a process running a tool's script, which the shim
	// passed through: a script that process execs (pyenv's shim exec'ing
	// its libexec/pyenv, a bash script) is the tool's internals too, while
	// the processes it starts are judged afresh. Scoped to the pid, so an
	// agent a tool's script execs (python3 through pyenv) still has its
	// shells seen.
	EnvToolPID = "SWETOUCH_TOOL_PID"
	maxCapture = 16 << 10 // head and tail kept of a command's output
)

// RealShellDir is where a sandbox that puts the shim at /bin/sh and
// /bin/bash keeps the real shells, by name (sandbox.Shells).
const RealShellDir = "/run/swetouch-shells"

// Shell reports whether name is a shell the shim stands in for.
func Shell(name string) bool {
	return name == "sh" || name == "bash" || name == "dash" || name == "rbash"
}

// Hub is what the shim needs of the session: the socket client satisfies
// it, and tests can pass the hub itself.
type Hub interface {
	Begin(wire.Begin) (int, error)
	End(int, wire.End) ([]wire.Message, error)
}

// armedHub is a hub that says, on begin, whether end needs an answer (the
// socket client).
type armedHub interface {
	BeginArmed(wire.Begin) (int, bool, error)
	EndAsync(int, wire.End)
}

// Main runs the shim as the shell argv0 names ("bash", "/shims/sh") with
// bash's arguments and returns the exit status to exit with. The real
// shell gets the same argv0, so $0 is what it would have been. A status
// below zero means the shell died of signal -status and the caller should
// die the same way.
func Main(argv0 string, args []string) int {
	name := filepath.Base(argv0)
	real, err := RealShell(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "swetouch shell: %v\n", err)
		return 127
	}
	cmd, ok := commandOf(args)
	sock := os.Getenv(EnvSocket)
	inside := os.Getenv(EnvInside) != "" || ok && swetouchCommand(cmd)
	if !ok && sock != "" && !inside {
		if s, src, ok := agentScriptOf(args); ok {
			return runScript(sock, real, argv0, args, s, src)
		}
	}
	if ok && sock != "" && !inside && startedAsAgent(cmd) {
		// the agent is `bash -c SCRIPT`: a shell script too, each of
		// its commands a step
		if s, text, ok := commandScript(argv0, args); ok {
			s.agent = true
			return runScript(sock, real, argv0, args, s, []byte(text))
		}
	}
	if !ok || sock == "" || inside {
		// not ours to watch: become the real shell
		env := os.Environ()
		if !ok && sock != "" && !inside {
			env = append(env, EnvToolPID+"="+strconv.Itoa(os.Getpid()))
		}
		err := syscall.Exec(real, append([]string{argv0}, args...), env)
		fmt.Fprintf(os.Stderr, "swetouch shell: exec %s: %v\n", real, err)
		return 127
	}
	Undumpable()
	c, err := wire.Dial(sock)
	if err != nil {
		// the hub is gone: behave as bash rather than fail the agent,
		// and say so, since nothing will record this command
		fmt.Fprintf(os.Stderr, unreachable, sock)
		err := syscall.Exec(real, append([]string{argv0}, args...), os.Environ())
		fmt.Fprintf(os.Stderr, "swetouch shell: exec %s: %v\n", real, err)
		return 127
	}
	defer c.Close()
	return Run(c, real, argv0, args, cmd)
}

// unreachable opens the warning a shim prints when its session's hub
// cannot be reached (the C fast path prints the same).
const unreachable = "swetouch shell: the session hub at %s cannot be reached: this command is not recorded\n"

// Exit ends the process with a status from Main: the code, or death by
// the same signal the shell died of.
func Exit(status int) {
	if status < 0 {
		sig := syscall.Signal(-status)
		signal.Reset(sig)
		// aimed at this thread, the signal lands before the call returns;
		// the exit below only runs if it somehow does not kill us
		runtime.LockOSThread()
		syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
		time.Sleep(time.Second)
		os.Exit(128 - status)
	}
	os.Exit(status)
}

// Run runs the real shell (as argv0) with args, reporting command to the
// hub, and appends the messages the hub returns after the command's output.
func Run(h Hub, real, argv0 string, args []string, command string) int {
	cwd, _ := os.Getwd()
	// the hub's answer to begin comes while the pipes and signals are set
	// up: the command itself starts only after it
	type begun struct {
		id    int
		armed bool // false: no message can come, and end needs no answer
		err   error
	}
	answer := make(chan begun, 1)
	go func() {
		b := wire.Begin{Command: command, Cwd: cwd, Source: "shell"}
		if ah, ok := h.(armedHub); ok {
			id, armed, err := ah.BeginArmed(b)
			answer <- begun{id, armed, err}
			return
		}
		id, err := h.Begin(b)
		answer <- begun{id, true, err}
	}()
	c := exec.Command(real, args...)
	c.Args[0] = argv0
	c.Env = childEnv(os.Environ(), os.Getenv(EnvDir))
	c.Stdin = os.Stdin
	capture := &capture{}
	var copies sync.WaitGroup
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	if tty {
		// a terminal stays a terminal for the shell; nothing is captured
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
	} else {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		streams := []struct {
			dst  *os.File
			into *io.Writer
		}{{os.Stdout, &c.Stdout}, {os.Stderr, &c.Stderr}}
		merged := samePipe(os.Stdout, os.Stderr)
		if merged {
			// the agent reads both from one pipe (2>&1): one pipe for the
			// command too, so its writes arrive in the order bash made them
			streams = streams[:1]
		}
		for _, s := range streams {
			r, w, err := os.Pipe()
			if err != nil {
				fmt.Fprintf(os.Stderr, "swetouch shell: %v\n", err)
				return 126
			}
			*s.into = w
			copies.Add(1)
			go func(dst *os.File, r *os.File) {
				defer copies.Done()
				copyOut(dst, r, capture)
				r.Close()
			}(s.dst, r)
		}
		if merged {
			c.Stderr = c.Stdout
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	b := <-answer
	id, herr, armed := b.id, b.err, b.armed
	if err := c.Start(); err != nil {
		said := fmt.Sprintf("swetouch shell: %v\n", err)
		fmt.Fprint(os.Stderr, said)
		if herr == nil {
			h.End(id, wire.End{Exit: 126, Output: said}) // the hub has the begin
		}
		return 126
	}
	for _, w := range []io.Writer{c.Stdout, c.Stderr} {
		if f, ok := w.(*os.File); ok && !tty {
			f.Close() // the child holds its own copies
		}
	}
	done := forwardSignals(c, sigs, tty)
	err := c.Wait()
	close(done)
	copies.Wait()
	status, sig := exitStatus(c.ProcessState, err)
	if herr == nil {
		end := capture.end(status)
		if sig != 0 {
			end.Signal = sig.String()
		}
		if ah, ok := h.(armedHub); ok && !armed {
			ah.EndAsync(id, end) // as the C path does
		} else if msgs, err := h.End(id, end); err == nil {
			Deliver(os.Stdout, msgs)
		}
	}
	if sig != 0 {
		return -int(sig)
	}
	return status
}

// exitStatus is the shell's exit code, or the signal that killed it.
func exitStatus(ps *os.ProcessState, err error) (int, syscall.Signal) {
	if ps == nil {
		return 127, 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) || err == nil {
		return ps.ExitCode(), 0
	}
	return 127, 0
}

// Deliver appends messages to the command's output on the tool-output
// channel, fenced so the agent (and a reader) cannot mistake them for the
// command's own output.
func Deliver(w io.Writer, msgs []wire.Message) {
	for _, m := range msgs {
		fmt.Fprintf(w, "\n<user-message>\n%s\n</user-message>\n", strings.TrimRight(m.Text, "\n"))
	}
}

// commandOf finds the command string of a `-c` invocation: the first
// argument after the options, bash's rule (`bash -c -e 'cmd'` runs cmd).
// A login shell's command (`bash -lc CMD`, SWE-agent's and many harnesses'
// way) is one too: the real shell still reads its profile first, as it
// would have. ok is false for anything else (a script, an interactive
// shell, -s, no arguments), which the shim passes through.
func commandOf(args []string) (string, bool) {
	sawC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			if sawC && i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // takes an option name
		case strings.HasPrefix(a, "--"):
			if a == "--rcfile" || a == "--init-file" {
				return "", false
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if strings.ContainsAny(a[1:], "is") {
				return "", false
			}
			sawC = sawC || strings.ContainsRune(a[1:], 'c')
		default:
			if !sawC {
				return "", false // a script file
			}
			return a, true
		}
	}
	return "", false
}

// RealShell finds the shell the shim stands in for: SWETOUCH_REAL_SHELL,
// else the sandbox's real one (RealShellDir), else name on PATH, skipping
// the shim directory and the shim itself, which may stand at /bin/bash.
func RealShell(name string) (string, error) {
	self, _ := os.Executable()
	selfInfo, _ := os.Stat(self)
	isSelf := func(p string) bool {
		info, err := os.Stat(p)
		return err == nil && selfInfo != nil && os.SameFile(info, selfInfo)
	}
	notSelf := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil && !isSelf(p)
	}
	if p := os.Getenv(EnvRealSh); p != "" && !isSelf(p) {
		return p, nil
	}
	if p := filepath.Join(RealShellDir, name); notSelf(p) {
		return p, nil
	}
	skip := os.Getenv(EnvDir)
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || skip != "" && sameDir(dir, skip) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			continue
		}
		if selfInfo != nil && os.SameFile(info, selfInfo) {
			continue
		}
		return p, nil
	}
	for _, p := range []string{"/bin/" + name, "/usr/bin/" + name} {
		if notSelf(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no real %s found", name)
}

// samePipe reports whether two files are one pipe or socket (an agent
// that reads a command's stdout and stderr together). Files are left
// apart: two descriptors of one file may have offsets of their own.
func samePipe(a, b *os.File) bool {
	ia, err1 := a.Stat()
	ib, err2 := b.Stat()
	return err1 == nil && err2 == nil && ia.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 && os.SameFile(ia, ib)
}

func sameDir(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// childEnv is the command's environment: the agent's, with the shim
// directory taken off PATH. The command is the agent's action; shells it
// starts in turn (pyenv's bash shims, `#!/usr/bin/env bash` scripts, a
// nested bash -c) are part of it, already covered by its classification
// and the watcher, and now run the real shell without the shim's start-up
// cost, which pyenv alone would pay a dozen times per python call.
//
// Where the shim stands at /bin/bash (a sandbox), taking it off PATH is
// not enough: EnvInside tells a shell started within the command that it
// is part of one.
func childEnv(env []string, shimDir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, EnvInside+"=") {
			continue
		}
		if p, ok := strings.CutPrefix(kv, "PATH="); ok && shimDir != "" {
			var keep []string
			for _, d := range filepath.SplitList(p) {
				if filepath.Clean(d) != filepath.Clean(shimDir) {
					keep = append(keep, d)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		}
		out = append(out, kv)
	}
	return append(out, EnvInside+"=1")
}

// swetouchCommand reports whether command runs swetouch itself (a hook
// an agent starts through /bin/sh, where the shim stands in a sandbox; a
// relay): it tells the hub what it is about itself, and is no action of
// the agent's to record around it.
func swetouchCommand(command string) bool {
	w := strings.TrimLeft(command, " \t")
	if i := strings.IndexAny(w, " \t\n;&|"); i >= 0 {
		w = w[:i]
	}
	w = strings.Trim(w, `'"`)
	return filepath.Base(w) == "swetouch" && strings.Contains(w, "/")
}

// forwardSignals passes the signals the shim receives on to the command it
// started (its process group, unless it holds a terminal) until the
// returned channel is closed.
func forwardSignals(c *exec.Cmd, sigs <-chan os.Signal, tty bool) chan<- struct{} {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if tty {
					c.Process.Signal(s)
				} else {
					syscall.Kill(-c.Process.Pid, s.(syscall.Signal))
				}
			case <-done:
				return
			}
		}
	}()
	return done
}

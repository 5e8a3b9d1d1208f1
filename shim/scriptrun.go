package shim

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/swetouch/swetouch/session/wire"
)

// agentScriptOf is the script of a shell's arguments when it is one of
// the agent's (agentScript) and its text can be read.
func agentScriptOf(args []string) (script, []byte, bool) {
	s, ok := scriptOf(args)
	if !ok || toolPID() {
		return s, nil, false
	}
	s.agent = !s.stdin && startedAsAgent(s.path) && !toolScript(s.path, os.Getenv("PATH"))
	if !s.stdin && !s.agent && !agentScript(s.path, os.Getenv("PATH")) {
		return s, nil, false
	}
	src, ok := s.source()
	return s, src, ok
}

// toolPID reports whether this process was marked as running a tool's
// script (EnvToolPID) before it exec'd this shell.
func toolPID() bool {
	return os.Getenv(EnvToolPID) == strconv.Itoa(os.Getpid())
}

// runScript dials the hub and runs the script's commands as steps; with
// no hub it becomes the real shell, saying so, as a command does.
func runScript(sock, real, argv0 string, args []string, s script, src []byte) int {
	Undumpable()
	c, err := wire.Dial(sock)
	if err != nil {
		fmt.Fprintf(os.Stderr, unreachable, sock)
		err := syscall.Exec(real, append([]string{argv0}, args...), os.Environ())
		fmt.Fprintf(os.Stderr, "swetouch shell: exec %s: %v\n", real, err)
		return 127
	}
	defer c.Close()
	return RunScript(c, real, argv0, args, s, src)
}

// RunScript runs a script (s, its text src) in the real shell as argv0
// would have, each of its top-level commands a step of its own on the
// hub, with the output it wrote before the next began. A script the
// parser cannot read, or too long to pass, runs whole as one step.
func RunScript(h Hub, real, argv0 string, args []string, s script, src []byte) int {
	name := s.path
	switch {
	case s.stdin:
		name = argv0
	case s.command:
		name = s.zero
	}
	stmts, err := statements(src, name, langOf(filepath.Base(argv0)))
	if err != nil || len(stmts) == 0 {
		return Run(h, real, argv0, args, string(src))
	}
	dir, err := os.MkdirTemp("", "swetouch-steps-")
	if err != nil {
		return Run(h, real, argv0, args, string(src))
	}
	defer os.RemoveAll(dir)
	req, ack := filepath.Join(dir, "req"), filepath.Join(dir, "ack")
	text := rewrite(src, stmts, req, ack, s.agent)
	if len(text) > maxRewritten || unix.Mkfifo(req, 0o600) != nil || unix.Mkfifo(ack, 0o600) != nil {
		return Run(h, real, argv0, args, string(src))
	}
	// both ends held here, so the script's opens never wait and its
	// reads never see an end
	reqF, err1 := os.OpenFile(req, os.O_RDWR, 0)
	ackF, err2 := os.OpenFile(ack, os.O_RDWR, 0)
	if err1 != nil || err2 != nil {
		return Run(h, real, argv0, args, string(src))
	}
	defer reqF.Close()
	defer ackF.Close()
	if s.stdin {
		// the script is read here: the shell's stdin is past it, as it
		// would be once the shell had read it all
		os.Stdin.Seek(0, 2)
	}
	if s.agent {
		warmThreads(8)
	}
	cmdArgs := append(append(append([]string{}, s.opts...), "-c", text, name), s.args...)
	c := exec.Command(real, cmdArgs...)
	c.Args[0] = argv0
	c.Env = childEnv(os.Environ(), os.Getenv(EnvDir))
	if s.agent {
		// the agent's own environment, PATH and all, for what an exec
		// statement hands over to; its commands are still marked inside
		c.Env = append(agentEnv(os.Environ()), EnvInside+"=1")
	}
	c.Stdin = os.Stdin
	st := &steps{h: h, stmts: stmts, ack: ackF}
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	var outs []*os.File // the read ends, with where each goes
	var dsts []*os.File
	if tty {
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
	} else {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		merged := samePipe(os.Stdout, os.Stderr)
		for i, dst := range []*os.File{os.Stdout, os.Stderr} {
			if i == 1 && merged {
				c.Stderr = c.Stdout
				break
			}
			r, w, err := os.Pipe()
			if err != nil {
				fmt.Fprintf(os.Stderr, "swetouch shell: %v\n", err)
				return 126
			}
			if i == 0 {
				c.Stdout = w
			} else {
				c.Stderr = w
			}
			outs, dsts = append(outs, r), append(dsts, dst)
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "swetouch shell: %v\n", err)
		return 126
	}
	for _, w := range []any{c.Stdout, c.Stderr} {
		if f, ok := w.(*os.File); ok && !tty {
			f.Close()
		}
	}
	exited, exitW, err := os.Pipe()
	if err != nil {
		c.Process.Kill()
		c.Wait()
		return 126
	}
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		st.loop(reqF, outs, dsts, exited, s.agent)
	}()
	waited := forwardSignals(c, sigs, tty)
	werr := c.Wait()
	close(waited)
	exitW.Close()
	<-loopDone
	exited.Close()
	status, sig := exitStatus(c.ProcessState, werr)
	st.finish(status, sig)
	if sig != 0 {
		return -int(sig)
	}
	return status
}

// steps is a script's run as the hub sees it: the step now running and
// what it has written.
type steps struct {
	h     Hub
	stmts []statement
	ack   *os.File
	cur   int // the running step's hub id; -1 before the first
	began bool
	out   *capture
}

// loop copies the script's output through as it comes and, at each call
// of the hook, ends the running step with what it wrote (all of it: the
// command has written it before its shell made the call) and begins the
// next. It returns once the outputs are closed and the shell has exited
// (exited at its end); for the agent itself (atExit), once the shell has
// exited and what is in the pipes is taken: a process it left behind
// holding them must not keep the agent running, which the sandbox ends
// with everything in it when the agent exits.
func (st *steps) loop(req *os.File, outs, dsts []*os.File, exited *os.File, atExit bool) {
	st.out = &capture{}
	fds := []unix.PollFd{{Fd: int32(req.Fd()), Events: unix.POLLIN}, {Fd: int32(exited.Fd()), Events: unix.POLLIN}}
	for _, r := range outs {
		fds = append(fds, unix.PollFd{Fd: int32(r.Fd()), Events: unix.POLLIN})
	}
	open := len(outs)
	done := false
	var pending []byte
	buf := make([]byte, 32<<10)
	copyOnce := func(i int) bool {
		n, err := outs[i].Read(buf)
		if n > 0 {
			dsts[i].Write(buf[:n])
			st.out.Write(buf[:n])
		}
		return err == nil
	}
	for open > 0 || !done {
		for i := range fds {
			fds[i].Revents = 0
		}
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		for i := 2; i < len(fds); i++ {
			if fds[i].Fd >= 0 && fds[i].Revents != 0 && !copyOnce(i-2) {
				fds[i].Fd = -1
				open--
			}
		}
		if fds[1].Revents != 0 {
			done = true
			fds[1].Fd = -1
			if atExit {
				// what is there now, and no more (a writer left behind
				// may never stop)
				for i := 2; i < len(fds); i++ {
					for k := 0; k < 64 && fds[i].Fd >= 0 && readable(fds[i].Fd) && copyOnce(i-2); k++ {
					}
				}
				return
			}
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			continue
		}
		// what the command wrote is in the pipes before the call is in
		// the FIFO: take all of it first
		for i := 2; i < len(fds); i++ {
			for fds[i].Fd >= 0 && readable(fds[i].Fd) {
				if !copyOnce(i - 2) {
					fds[i].Fd = -1
					open--
				}
			}
		}
		n, _ := req.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := strings.IndexByte(string(pending), '\n')
			if i < 0 {
				break
			}
			line := string(pending[:i])
			pending = pending[i+1:]
			if call, ok := parseCall(line); ok {
				st.step(call)
			}
			st.ack.Write([]byte("\n"))
		}
	}
}

// readable reports whether fd has something to read now.
func readable(fd int32) bool {
	p := []unix.PollFd{{Fd: fd, Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents != 0
}

// step ends the running step with the status the call passes on (its
// messages after its output, before the next command runs) and begins
// the one the call names.
func (st *steps) step(call hookCall) {
	st.end(call.status, 0)
	if call.index < 0 || call.index >= len(st.stmts) || st.stmts[call.index].exec {
		return
	}
	id, err := st.h.Begin(wire.Begin{Command: st.stmts[call.index].text, Cwd: call.cwd, Source: "shell"})
	if err != nil {
		return
	}
	st.cur, st.began = id, true
	st.out = &capture{}
}

func (st *steps) end(status int, sig syscall.Signal) {
	if !st.began {
		return
	}
	st.began = false
	e := st.out.end(status)
	if sig != 0 {
		e.Signal = sig.String()
	}
	if msgs, err := st.h.End(st.cur, e); err == nil {
		Deliver(os.Stdout, msgs)
	}
}

// finish ends the last step with the script's own exit.
func (st *steps) finish(status int, sig syscall.Signal) { st.end(status, sig) }

// agentEnv is the environment without the mark of a command's inside.
func agentEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvInside+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// startedAsAgent reports whether the script at path is the agent itself:
// the sandbox's pid 1 started it (its parent, through the start script's
// exec) and names it on its command line, which shows the agent's command
// after bwrap's `-- sh -c SCRIPT` (sandbox.Runner.Command). A script the
// agent's first program execs in turn (pyenv's shim execs its libexec)
// is not named there.
func startedAsAgent(path string) bool {
	if os.Getppid() != 1 {
		return false
	}
	b, err := os.ReadFile("/proc/1/cmdline")
	if err != nil {
		return false
	}
	f := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	for i, a := range f {
		if a != "--" {
			continue
		}
		if i+4 >= len(f) {
			return false
		}
		abs, _ := filepath.Abs(path)
		for _, c := range f[i+4:] {
			if c == path || c == abs {
				return true
			}
		}
		return false
	}
	return false
}

// warmThreads has the runtime make n threads now, which it keeps idle
// and reuses: the agent itself lives as long as its script, and a script
// that uses up its sandbox's pids limit (a fork bomb) would otherwise
// leave the runtime no thread to make when it next needs one, and abort
// it (seen: pthread_create failed, the agent's shell orphaned).
func warmThreads(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := unix.Timespec{Nsec: 5e6}
			unix.Nanosleep(&ts, nil) // a goroutine in a system call holds its thread
		}()
	}
	wg.Wait()
}

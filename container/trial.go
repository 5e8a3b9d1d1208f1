package container

import (
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
)

// Where a trial's files are inside its container.
const (
	inBin   = "/opt/swetouch/bin"
	inTask  = "/opt/swetouch/task"
	inOut   = "/opt/swetouch/out"
	inRelay = "/opt/swetouch/relay"
	inTools = "/opt/swetouch/tools"
)

// Trial is one swetouch run in a container of a task's image.
type Trial struct {
	Runtime *Runtime
	// Image is the task's environment image; Workdir the checkout in it
	// the agent works in (default DefaultWorkdir).
	Image, Workdir string
	// Task is the task's folder on the host, Out the run folder there.
	Task, Out string
	// Swetouch and Shim are the executables handed to the container,
	// read-only (Shim "" for none: swetouch serves as its own shim).
	// Both should be static (Static), as the image's C library is not
	// the host's.
	Swetouch, Shim string
	// Args are `swetouch run`'s arguments inside, after those the trial
	// sets itself (--in-place, --task, --out): its flags, then -- and
	// the agent's command.
	Args []string
	// ReadOnly are host paths the container sees read-only at the same
	// path: the agent's install ($SWETOUCH_AGENTS), a plan, a records
	// file. The task image stays as it is.
	ReadOnly []string
	// Programs are host executables the agent's install needs and the
	// image may lack (Node for an npm-installed CLI), by name: mounted
	// read-only in a folder that goes first on the container's PATH.
	Programs map[string]string
	// Env are KEY=VALUE pairs set in the container.
	Env []string
	// Endpoints are the host's HTTP endpoints on its loopback the trial
	// talks to (the agent's model, the user's, a judge's): the container
	// reaches each at the same address, through a unix socket the host
	// relays (its network stays off).
	Endpoints []string
	// KeepHistory leaves the image's checkout's git as the image has
	// it. By default it is pruned to its HEAD commit before the agent
	// starts (Prune), whatever the image holds.
	KeepHistory bool
	// Pids and Memory bound the container as a whole (0: no bound):
	// the sandbox inside cannot make control groups of its own in a
	// container's read-only cgroup file system, so the trial's limits
	// are the container's, the hub's and the verifier's included.
	Pids, Memory int64
	// Stdout and Stderr receive swetouch's output inside.
	Stdout, Stderr io.Writer
}

// Run runs the trial and returns the exit code of swetouch inside. The
// container is removed at the end (and stopped when ctx ends); the run
// folder is written to Out through a mount, whole, as a run on the host
// writes it. When the container ends without a result.json (the image
// is missing, the runtime failed, swetouch could not start in it), Run
// writes one without a verdict saying why: the machine's failure, not
// the agent's.
func (t Trial) Run(ctx context.Context) (int, error) {
	stage, err := os.MkdirTemp("", "swetouch-trial-")
	if err != nil {
		return -1, err
	}
	defer os.RemoveAll(stage)
	taskCopy, err := stageTask(t.Task, stage)
	if err != nil {
		return -1, err
	}
	if err := os.MkdirAll(t.Out, 0o755); err != nil {
		return -1, err
	}
	out, err := filepath.Abs(t.Out)
	if err != nil {
		return -1, err
	}
	name := "swetouch-trial-" + randomHex(6)
	args := t.options(name, taskCopy, out)
	inner, mounts, closeRelay, err := t.inner(stage)
	if err != nil {
		return -1, err
	}
	defer closeRelay()
	args = append(append(append(append(args, mounts...), "--workdir", t.workdir(), t.Image), inner...), t.Args...)
	var tail limitedBuffer
	code, err := t.wait(ctx, name, args, &tail)
	if err == nil && code != 0 {
		if _, serr := os.Stat(filepath.Join(out, result.File)); os.IsNotExist(serr) {
			err = noVerdict(out, t.Task, fmt.Sprintf("the trial's container ended (%s exit %d) before swetouch inside wrote a result: %s", t.Runtime.Name, code, lastLines(tail.String(), 5)))
		}
	}
	return code, err
}

// options are the container's: its name, no network, an init, the
// sandbox's security options, the limits, and what is mounted in.
func (t Trial) options(name, taskCopy, out string) []string {
	args := []string{"run", "--rm", "--name", name, "--init", "--network", "none", "--pull", "never"}
	// swetouch's copies (the checkout's start, the verifier's copy, the
	// sandbox's files) go to /tmp: in memory, since writing them to the
	// container's overlay layer took 16 times as long (sympy's checkout:
	// 9.8 s against 0.6 s) and is thrown away with the container anyway
	args = append(args, "--tmpfs", "/tmp:rw,exec,mode=1777")
	args = append(args, t.Runtime.WorkdirOptions(t.workdir())...)
	args = append(args, t.Runtime.SandboxOptions()...)
	args = append(args, "-v", t.Swetouch+":"+inBin+"/swetouch:ro", "-v", taskCopy+":"+inTask+":ro", "-v", out+":"+inOut)
	if t.Shim != "" {
		args = append(args, "-v", t.Shim+":"+inBin+"/swetouch-shim:ro")
	}
	if t.Pids > 0 {
		args = append(args, "--pids-limit", fmt.Sprint(t.Pids))
	}
	if t.Memory > 0 {
		args = append(args, "--memory", fmt.Sprint(t.Memory))
	}
	for _, p := range t.ReadOnly {
		args = append(args, "-v", p+":"+p+":ro")
	}
	names := slices.Sorted(maps.Keys(t.Programs))
	for _, n := range names {
		args = append(args, "-v", t.Programs[n]+":"+filepath.Join(inTools, n)+":ro")
	}
	for _, kv := range t.Env {
		args = append(args, "-e", kv)
	}
	return args
}

// inner is the command the container runs (swetouch images inside, then
// swetouch run --in-place), the mounts it needs, and the host's end of
// the model relay to close after.
func (t Trial) inner(stage string) (inner, mounts []string, closeRelay func(), err error) {
	self := filepath.Join(inBin, "swetouch")
	inner = []string{self, "images", "inside"}
	if !t.KeepHistory {
		inner = append(inner, "--prune", t.workdir())
	}
	if len(t.Programs) > 0 {
		inner = append(inner, "--path", inTools)
	}
	var relays []*Relay
	closeRelay = func() {
		for _, r := range relays {
			r.Close()
		}
	}
	var addrs []string
	for _, u := range t.Endpoints {
		addr, err := LoopbackAddr(u)
		if err != nil {
			closeRelay()
			return nil, nil, nil, err
		}
		if !slices.Contains(addrs, addr) {
			addrs = append(addrs, addr)
		}
	}
	if len(addrs) > 0 {
		dir := filepath.Join(stage, "relay")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, nil, nil, err
		}
		mounts = append(mounts, "-v", dir+":"+inRelay)
	}
	for i, addr := range addrs {
		sock := fmt.Sprintf("%d.sock", i)
		relay, err := ListenRelay(filepath.Join(stage, "relay", sock), addr)
		if err != nil {
			closeRelay()
			return nil, nil, nil, err
		}
		relays = append(relays, relay)
		inner = append(inner, "--relay", addr+"="+filepath.Join(inRelay, sock))
	}
	inner = append(inner, "--", self, "run", "--in-place", t.workdir(), "--task", inTask, "--out", inOut)
	return inner, mounts, closeRelay, nil
}

// wait runs the runtime with args until the container ends, stopping it
// when ctx ends; tail keeps the end of what it printed on stderr.
func (t Trial) wait(ctx context.Context, name string, args []string, tail *limitedBuffer) (int, error) {
	c := t.Runtime.Command(context.WithoutCancel(ctx), args...)
	c.Stdout, c.Stderr = t.Stdout, io.MultiWriter(orDiscard(t.Stderr), tail)
	if err := c.Start(); err != nil {
		return -1, err
	}
	stop := context.AfterFunc(ctx, func() {
		// the runtime's own stop: SIGTERM to swetouch inside, which ends
		// its agent and writes its files, then a kill
		t.Runtime.Command(context.Background(), "stop", "-t", "15", name).Run()
	})
	defer stop()
	err := c.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

func (t Trial) workdir() string {
	if t.Workdir == "" {
		return DefaultWorkdir
	}
	return t.Workdir
}

// noVerdict writes the run folder's result.json for a trial whose
// container never gave one.
func noVerdict(out, taskDir, reason string) error {
	res := &result.Run{Task: filepath.Base(taskDir), Condition: "vanilla", Agent: []string{}, Interventions: []event.Attempt{}, Sandbox: "none", Reason: reason}
	return res.Write(filepath.Join(out, result.File))
}

// lastLines is the last n lines of s, joined by " / ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// stageTask copies the task's folder (instruction, task.toml, tests,
// solution: small) into stage, and returns the copy. A task whose code
// lives in the image stays one (no repo/): `run --in-place` inside takes
// its starting code from the checkout.
func stageTask(dir, stage string) (string, error) {
	dst := filepath.Join(stage, "task")
	if _, err := task.CopyRegular(dir, dst); err != nil {
		return "", fmt.Errorf("copying the task %s: %w", dir, err)
	}
	return dst, nil
}

// Static reports whether the executable at p needs no dynamic loader,
// so that it runs in an image whatever its C library.
func Static(p string) (bool, error) {
	f, err := elf.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false, nil
		}
	}
	return true, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// TrueTime is how long a container of the image takes to start, run
// `true` and be removed: the floor any trial in a container pays, which
// the bench divides a trial's added time by.
func TrueTime(ctx context.Context, rt *Runtime, image string) (time.Duration, error) {
	start := time.Now()
	if out, err := rt.Output(ctx, "run", "--rm", "--network", "none", "--pull", "never", image, "true"); err != nil {
		return 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return time.Since(start), nil
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/container"
	"github.com/swetouch/swetouch/task"
)

// containerFlags are run's --runtime and --image: the whole trial in a
// container of the task's image (docs/containers.md).
type containerFlags struct {
	runtime, image, workdir string
	keepHistory             bool
}

// wanted reports whether the flags ask for a trial in a container.
func (f *containerFlags) wanted() bool {
	return f.runtime != "" || f.image != "" || f.workdir != "" || f.keepHistory
}

func (f *containerFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.runtime, "runtime", "", "podman or docker: run the whole trial (hub, shim, agent in bwrap, verifier) inside a container of the task's image, its network off (default: on the host)")
	c.Flags().StringVar(&f.image, "image", "", "with --runtime: the image (default: task.toml's [environment] docker_image)")
	c.Flags().BoolVar(&f.keepHistory, "keep-history", false, "with --runtime: leave the image's checkout's git history as the image has it (default: pruned to its HEAD commit before the agent starts, so no later commit, tag or reflog can hold the answer)")
	c.Flags().StringVar(&f.workdir, "workdir", "", "with --runtime: the checkout in the image the agent works in (default: task.toml's [environment] workdir, else /testbed)")
}

// ownFlags are the flags the container trial sets itself inside, or
// that only the host's swetouch reads.
var ownFlags = []string{"runtime", "image", "workdir", "keep-history", "task", "out", "in-place", "keep"}

// pathFlags name host files the trial inside reads; endpointFlags host
// endpoints it talks to, relayed in.
var (
	pathFlags     = []string{"records", "mcp", "visible", "personas", "prices"}
	endpointFlags = []string{"model-url", "user-model-url", "judge-model-url", "reviewer-model-url"}
)

// systemDirs are the image's own: a path under them named on the
// command line is the image's file, never the host's mounted over it.
var systemDirs = []string{"/bin", "/sbin", "/usr", "/lib", "/lib64", "/etc", "/proc", "/sys", "/dev", "/opt/swetouch"}

// run runs the trial in a container: the flags given, less the
// container's own, and the agent's command go to `swetouch run
// --in-place` inside; every host file or folder they name is mounted
// read-only at its own path.
func (f *containerFlags) run(c *cobra.Command, taskDir, out string, agent []string) error {
	t, err := f.trial(c, taskDir, out)
	if err != nil {
		return err
	}
	passOn(c, t, agent)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := t.Run(ctx)
	if err != nil {
		return fmt.Errorf("the trial's container: %w", err)
	}
	// swetouch inside named its own paths; this is the run folder here
	fmt.Fprintf(c.ErrOrStderr(), "swetouch: the run folder: %s\n", out)
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// trial checks the flags a trial in a container reads itself (bad ones
// are usage errors, before anything starts) and makes the trial: the
// image, the runtime, swetouch and its shim, the limits.
func (f *containerFlags) trial(c *cobra.Command, taskDir, out string) (*container.Trial, error) {
	if f.runtime == "" {
		return nil, badInput("--image, --workdir and --keep-history are for a trial in a container: give --runtime podman|docker")
	}
	if c.Flags().Changed("in-place") {
		return nil, badInput("--in-place is the container's own (its checkout): give --workdir to name it")
	}
	img, wd, err := task.Environment(taskDir)
	if err != nil {
		return nil, badInput("--task: %v", err)
	}
	img, wd = orString(f.image, img), orString(f.workdir, wd)
	if img == "" {
		return nil, badInput("--runtime %s: the task names no image ([environment] docker_image in %s); give --image", f.runtime, filepath.Join(taskDir, "task.toml"))
	}
	if c.Flags().Changed("model-upstream") {
		return nil, badInput("--model-upstream is not relayed into a container yet: give --model-url (an endpoint on this machine's loopback)")
	}
	for _, name := range endpointFlags {
		if u, _ := c.Flags().GetString(name); u != "" {
			if _, err := container.LoopbackAddr(u); err != nil {
				return nil, badInput("--%s: %v", name, err)
			}
		}
	}
	cache, err := container.CacheDir()
	if err != nil {
		return nil, err
	}
	rt, err := container.Find(f.runtime, cache)
	if err != nil {
		return nil, badInput("%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if static, err := container.Static(exe); err == nil && !static {
		fmt.Fprintf(c.ErrOrStderr(), "swetouch: %s is linked dynamically: it runs in the image only if the image's C library has what it needs (build with CGO_ENABLED=0 for any image)\n", exe)
	}
	t := &container.Trial{Runtime: rt, Image: img, Workdir: wd, Task: taskDir, Out: out, Swetouch: exe, KeepHistory: f.keepHistory,
		Stdout: c.OutOrStdout(), Stderr: c.ErrOrStderr()}
	if shim := filepath.Join(filepath.Dir(exe), "swetouch-shim"); isFile(shim) {
		t.Shim = shim
	}
	if t.Pids, err = c.Flags().GetInt64("pids-limit"); err != nil || t.Pids < 0 {
		return nil, badInput("--pids-limit: want 0 or more")
	}
	mem, _ := c.Flags().GetString("memory-limit")
	if t.Memory, err = parseBytes(mem); err != nil {
		return nil, badInput("--memory-limit: %v", err)
	}
	return t, nil
}

// passOn gives the run inside the flags given (less the container's
// own) and the agent's command, with every host file they name mounted
// read-only at its own path, the endpoints they name relayed, and the
// agent's install, Node and the keys the hub inside needs.
func passOn(c *cobra.Command, t *container.Trial, agent []string) {
	var ro []string
	c.Flags().Visit(func(fl *pflag.Flag) {
		if slices.Contains(ownFlags, fl.Name) {
			return
		}
		vals := []string{fl.Value.String()}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			// a file a flag names (records, an MCP configuration, a
			// path --visible shows) is read at its absolute path inside
			if slices.Contains(pathFlags, fl.Name) && v != "" {
				if abs, err := filepath.Abs(v); err == nil && exists(abs) && !underAny(abs, systemDirs) {
					v, ro = abs, append(ro, abs)
				}
			}
			t.Args = append(t.Args, "--"+fl.Name+"="+v)
		}
		if slices.Contains(endpointFlags, fl.Name) {
			t.Endpoints = append(t.Endpoints, fl.Value.String())
		}
	})
	for _, a := range agent {
		if filepath.IsAbs(a) && exists(a) && !underAny(a, systemDirs) && !slices.Contains(ro, a) {
			ro = append(ro, a)
		}
	}
	if c.Flags().Changed("agent") {
		// a preset's CLI is found where install-agents.sh put it, and
		// runs on the host's Node: both handed in, read-only, so the
		// task's image stays as it is
		if d := agents.AgentsDir(); exists(d) && os.Getenv("SWETOUCH_AGENTS") == "" {
			t.Env, ro = append(t.Env, "SWETOUCH_AGENTS="+d), append(ro, d)
		}
		if node, err := exec.LookPath("node"); err == nil {
			if real, err := filepath.EvalSymlinks(node); err == nil {
				t.Programs = map[string]string{"node": real}
			}
		}
	}
	for _, k := range []string{"SWETOUCH_USER_API_KEY", "SWETOUCH_JUDGE_API_KEY", "SWETOUCH_REVIEWER_API_KEY"} {
		// the user's, judge's and reviewer's keys, by name: their models
		// are called by the hub inside
		if _, ok := os.LookupEnv(k); ok {
			t.Env = append(t.Env, k)
		}
	}
	for _, k := range []string{"SWETOUCH_AGENTS", "SWETOUCH_SANDBOX"} {
		if v := os.Getenv(k); v != "" {
			t.Env = append(t.Env, k+"="+v)
			if filepath.IsAbs(v) && exists(v) && !slices.Contains(ro, v) {
				ro = append(ro, v)
			}
		}
	}
	t.ReadOnly = ro
	t.Args = append(append(t.Args, "--"), agent...)
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// Package container builds a task's environment image without a
// registry and runs a whole swetouch trial inside a container of it.
//
// An image is made in three steps (Build): a Debian root file system from
// debootstrap (cached as a tarball, imported once), the Debian packages
// and pip requirements the task's environment names, and the task's
// repository at its base commit, fetched alone so that the image holds
// none of the repository's later history (history.go). A trial (Trial)
// starts the image with the network off, hands it swetouch read-only,
// and runs `swetouch run --in-place` over the image's checkout inside:
// the hub, the watcher, the shim, the agent in bubblewrap and the
// verifier all run in the container, and the run folder is written to a
// folder of the host's mounted in.
package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Podman and Docker are the runtimes swetouch drives.
const (
	Podman = "podman"
	Docker = "docker"
)

// Runtime is a container engine's command line.
type Runtime struct {
	// Name is Podman or Docker.
	Name string
	// Path is its executable.
	Path string
	// Conf is the containers.conf podman is given (CONTAINERS_CONF), ""
	// for the machine's own.
	Conf string
}

// ErrNoRuntime is the error of Find when the runtime is not installed.
var ErrNoRuntime = errors.New("no container runtime")

// Find is the runtime called name, found on PATH. For podman it writes
// swetouch's containers.conf into confDir unless CONTAINERS_CONF already
// names one (the user's choice wins).
func Find(name, confDir string) (*Runtime, error) {
	switch name {
	case Podman, Docker:
	default:
		return nil, fmt.Errorf("--runtime: want %s or %s, got %q", Podman, Docker, name)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not on PATH (Debian: apt-get install %s)", ErrNoRuntime, name, debianPackage(name))
	}
	rt := &Runtime{Name: name, Path: p}
	if name == Podman && os.Getenv("CONTAINERS_CONF") == "" {
		if rt.Conf, err = writeConf(confDir); err != nil {
			return nil, err
		}
	}
	return rt, nil
}

func debianPackage(name string) string {
	if name == Docker {
		return "docker.io"
	}
	return name
}

// podmanConf is what podman needs on a machine whose root lacks
// CAP_SYS_RESOURCE (a container of its own, as CI runs in): crun fails
// to start there and runc does not, and the default ulimits (1048576
// files) are past what such a root may raise its limits to. Both values
// are harmless where podman would have run anyway.
const podmanConf = `# written by swetouch (container.Find): runc, and ulimits an unprivileged root may set
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
`

func writeConf(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "containers.conf")
	if b, err := os.ReadFile(p); err == nil && string(b) == podmanConf {
		return p, nil
	}
	return p, os.WriteFile(p, []byte(podmanConf), 0o644)
}

// Command is the runtime's command line with args.
func (r *Runtime) Command(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, r.Path, args...)
	if r.Conf != "" {
		c.Env = append(os.Environ(), "CONTAINERS_CONF="+r.Conf)
	}
	return c
}

// Output runs the runtime with args and returns its standard output; the
// error holds what it printed on stderr.
func (r *Runtime) Output(ctx context.Context, args ...string) ([]byte, error) {
	c := r.Command(ctx, args...)
	var stderr limitedBuffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", r.Name, args[0], err, stderr.String())
	}
	return out, nil
}

// SandboxOptions are what a container needs for bubblewrap to make its
// sandbox inside: user namespaces and a fresh /proc, which the runtimes'
// default seccomp profile and masked /proc paths refuse. Both runtimes
// can lift those two alone (podman's unmask, docker's systempaths),
// rather than --privileged, which also asks for every capability: more
// than the trial needs, and more than a root without CAP_SYS_RESOURCE
// (a machine that is itself a container) can give, where docker
// --privileged fails to start.
//
// And CAP_SYS_ADMIN, for swetouch inside (root, outside the sandbox) to
// enter the agent's network namespace and relay its model endpoint in,
// as it does on the host: without it the agent would have to share the
// container's network, where every endpoint relayed for the hub (the
// user's model, a judge's) listens too. And CAP_SYS_PTRACE, since the
// agent's sandbox runs as a uid of its trial's own (sandbox.Lease): to
// open another uid's /proc/PID/ns/net, root needs it, as it has on the
// host. bwrap gives the agent none of root's capabilities, as on the
// host.
func (r *Runtime) SandboxOptions() []string {
	caps := []string{"--cap-add", "SYS_ADMIN", "--cap-add", "SYS_PTRACE"}
	if r.Name == Docker {
		return append([]string{"--security-opt", "seccomp=unconfined", "--security-opt", "systempaths=unconfined"}, caps...)
	}
	return append([]string{"--security-opt", "seccomp=unconfined", "--security-opt", "unmask=/proc/*"}, caps...)
}

// WorkdirOptions put the image's checkout at workdir in memory, copied
// from the image as the container starts (podman's tmpfs copies up what
// the image holds there, by default): the agent's sandbox hands every
// file of it to the trial's uid (a chown each), which on the container's
// overlay layer copies each file up whole, 6.7 s for sympy's checkout
// against 0.05 s in memory, for a copy-up at start of about 1 s. Docker's
// tmpfs starts empty, so there the checkout stays on the overlay.
func (r *Runtime) WorkdirOptions(workdir string) []string {
	if r.Name != Podman {
		return nil
	}
	return []string{"--tmpfs", workdir + ":rw,exec,mode=0755"}
}

// HasImage reports whether the runtime holds the image ref.
func (r *Runtime) HasImage(ctx context.Context, ref string) bool {
	if r.Name == Podman {
		return r.Command(ctx, "image", "exists", ref).Run() == nil
	}
	return r.Command(ctx, "image", "inspect", ref).Run() == nil
}

// limitedBuffer keeps the last 8 KiB written to it: a failed command's
// stderr for its error, without holding a long build's output.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if n := len(l.b); n > 8<<10 {
		l.b = append(l.b[:0], l.b[n-8<<10:]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }

// imageID is the ID of the image ref names, "" when there is none.
func (r *Runtime) imageID(ctx context.Context, ref string) string {
	out, err := r.Output(ctx, "image", "inspect", "--format", "{{.Id}}", ref)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

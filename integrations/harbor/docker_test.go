package harbor_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// prereqs are what a Harbor run here needs, found or reported missing.
type prereqs struct {
	venv   string // Harbor's venv (scripts/install-harbor.sh)
	docker string // the docker CLI, whose compose plugin Harbor drives
}

// harborVenv is Harbor's venv, or the test is skipped (failed when
// SWETOUCH_REQUIRE names harbor) saying why.
func harborVenv(t *testing.T) string {
	t.Helper()
	venv := os.Getenv("SWETOUCH_HARBOR")
	if venv == "" {
		home, _ := os.UserHomeDir()
		venv = filepath.Join(home, ".cache", "swetouch-harbor")
	}
	if _, err := os.Stat(filepath.Join(venv, "bin", "harbor")); err != nil {
		testsupport.Missing(t, testsupport.Harbor, "Harbor is not installed at %s (bash scripts/install-harbor.sh; it needs Python >= 3.12): %v", venv, err)
	}
	return venv
}

func findPrereqs(t *testing.T) prereqs {
	t.Helper()
	p := prereqs{venv: harborVenv(t)}
	var err error
	if p.docker, err = exec.LookPath("docker"); err != nil {
		testsupport.Missing(t, testsupport.Harbor, "no docker CLI (apt-get install docker.io): %v", err)
	}
	if _, err := exec.LookPath("dockerd"); err != nil {
		testsupport.Missing(t, testsupport.Harbor, "no dockerd (apt-get install docker.io): %v", err)
	}
	if out, err := exec.Command(p.docker, "compose", "version").CombinedOutput(); err != nil {
		testsupport.Missing(t, testsupport.Harbor, "no docker compose v2 plugin (bash scripts/install-harbor.sh builds it): %v: %s", err, out)
	}
	return p
}

// dockerCache is the data root of the tests' dockerd, kept between runs
// so the images built into it are built once.
func dockerCache() string {
	if d := os.Getenv("SWETOUCH_CACHE"); d != "" {
		return filepath.Join(d, "harbor-docker")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "swetouch", "harbor-docker")
}

// startDockerd starts a dockerd of the test's own (no bridge, no
// iptables: docs/containers.md) over the kept data root and returns its
// DOCKER_HOST, once the daemon says its API listens. It is stopped at the
// test's end.
func startDockerd(t *testing.T) string {
	t.Helper()
	run, err := os.MkdirTemp("", "swth-") // short: the socket's path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	data := dockerCache()
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(run, "docker.sock")
	cmd := exec.Command("dockerd", "--data-root", data, "--exec-root", filepath.Join(run, "exec"),
		"--pidfile", filepath.Join(run, "dockerd.pid"), "-H", "unix://"+sock,
		"--bridge=none", "--iptables=false", "--ip-masq=false")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		testsupport.Missing(t, testsupport.Harbor, "dockerd does not start: %v", err)
	}
	listening := make(chan struct{})
	var log strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			line := sc.Text()
			if log.Len() < 64<<10 {
				log.WriteString(line + "\n")
			}
			if !said && strings.Contains(line, "API listen on "+sock) {
				said = true
				close(listening)
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { <-done; exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	select {
	case <-listening:
	case err := <-exited:
		testsupport.Missing(t, testsupport.Harbor, "dockerd exited before listening (%v) (is another dockerd using %s?):\n%s", err, data, log.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("dockerd did not listen within 2 minutes:\n%s", log.String())
	}
	return "unix://" + sock
}

// command is a host command with DOCKER_HOST set, its output in the
// failure when it fails.
func command(t *testing.T, ctx context.Context, env []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = append(os.Environ(), env...), dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

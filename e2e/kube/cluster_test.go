package kube_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/container"
	"github.com/swetouch/swetouch/internal/testsupport"
)

// script is the cluster's script, from this package's folder.
var script, _ = filepath.Abs(filepath.Join("..", "..", "scripts", "k8s-local.sh"))

// cluster is the single-node cluster scripts/k8s-local.sh runs: its
// kubeconfig, and the host's address on the pods' bridge (where a pod
// reaches a server of the test's).
type cluster struct {
	kubeconfig, host string
}

// needCluster is the running cluster, or starts it when its binaries are
// built (stopping it after the test); else the test skips, or fails when
// SWETOUCH_REQUIRE names kube.
func needCluster(t *testing.T) *cluster {
	t.Helper()
	testsupport.Slow(t)
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		testsupport.Missing(t, testsupport.Kube, "the local cluster runs as root on Linux")
	}
	if err := scriptCmd("status").Run(); err != nil {
		if out, err := scriptCmd("built").CombinedOutput(); err != nil {
			testsupport.Missing(t, testsupport.Kube, "no cluster running and none built (scripts/k8s-local.sh up builds and starts one): %v %s", err, out)
		}
		t.Log("starting the cluster: scripts/k8s-local.sh up")
		if out, err := scriptCmd("up").CombinedOutput(); err != nil {
			testsupport.Missing(t, testsupport.Kube, "scripts/k8s-local.sh up: %v\n%s", err, out)
		}
		t.Cleanup(func() {
			if out, err := scriptCmd("down").CombinedOutput(); err != nil {
				t.Errorf("scripts/k8s-local.sh down: %v\n%s", err, out)
			}
		})
	}
	out, err := scriptCmd("env").Output()
	if err != nil {
		t.Fatalf("scripts/k8s-local.sh env: %v", err)
	}
	c := &cluster{}
	for line := range strings.Lines(string(out)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		switch k {
		case "KUBECONFIG":
			c.kubeconfig = v
		case "SWETOUCH_K8S_HOST":
			c.host = v
		}
	}
	if c.kubeconfig == "" || c.host == "" {
		t.Fatalf("scripts/k8s-local.sh env: %q", out)
	}
	return c
}

func scriptCmd(args ...string) *exec.Cmd {
	return exec.Command("bash", append([]string{script}, args...)...)
}

// kubectl runs kubectl against the cluster and returns its output; a
// failure ends the test.
func (c *cluster) kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.kubectlCmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (c *cluster) kubectlCmd(args ...string) *exec.Cmd {
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig)
	return cmd
}

// load copies podman's images into the cluster's containerd.
func (c *cluster) load(t *testing.T, images ...string) {
	t.Helper()
	if out, err := scriptCmd(append([]string{"load"}, images...)...).CombinedOutput(); err != nil {
		t.Fatalf("scripts/k8s-local.sh load %v: %v\n%s", images, err, out)
	}
}

// namespace makes a namespace of the test's, deleted after it (with its
// Jobs and pods), and a volume on a host folder claimed in it as claim.
func (c *cluster) namespace(t *testing.T, name, claim, hostDir string) {
	t.Helper()
	c.kubectl(t, "create", "namespace", name)
	// a pod is refused until the namespace's service account exists
	c.kubectl(t, "wait", "-n", name, "--for=create", "--timeout=1m", "serviceaccount/default")
	pv := name + "-data"
	t.Cleanup(func() {
		c.kubectlCmd("delete", "namespace", name, "--wait=true", "--timeout=2m").Run()
		c.kubectlCmd("delete", "pv", pv, "--wait=false").Run()
	})
	manifest := fmt.Sprintf(`{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": %q},
  "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
   "persistentVolumeReclaimPolicy": "Retain", "claimRef": {"namespace": %q, "name": %q},
   "hostPath": {"path": %q, "type": "Directory"}}},
 {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": %q, "namespace": %q},
  "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "volumeName": %q,
   "resources": {"requests": {"storage": "1Gi"}}}}]}`, pv, name, claim, hostDir, claim, name, pv)
	cmd := c.kubectlCmd("apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the volume: %v\n%s", err, out)
	}
}

// jobState is what the test reads of a Job: its name, whether it is
// finished and how, and how many pods it ran.
type jobState struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		Succeeded  int `json:"succeeded"`
		Failed     int `json:"failed"`
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

// finished is "Complete", "Failed" or "" while the Job runs.
func (j jobState) finished() string {
	for _, c := range j.Status.Conditions {
		if (c.Type == "Complete" || c.Type == "Failed") && c.Status == "True" {
			return c.Type
		}
	}
	return ""
}

// waitJobs watches the namespace's Jobs (kubectl get --watch: the API
// server's watch, no polling) until want of them have finished, and
// returns their last states by name.
func (c *cluster) waitJobs(t *testing.T, ns string, want int, timeout time.Duration) map[string]jobState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", "get", "jobs", "-n", ns, "--watch", "--output-watch-events=false", "-o", "json")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	jobs := map[string]jobState{}
	dec := json.NewDecoder(bufio.NewReader(out))
	for {
		var obj struct {
			Kind  string     `json:"kind"`
			Items []jobState `json:"items"`
			jobState
		}
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("watching the Jobs (%d of %d finished): %v %s\n%s", done(jobs), want, err, stderr.String(), c.describe(ns))
		}
		items := obj.Items
		if obj.Kind == "Job" {
			items = []jobState{obj.jobState}
		}
		for _, j := range items {
			jobs[j.Metadata.Name] = j
		}
		if done(jobs) >= want {
			return jobs
		}
	}
}

func done(jobs map[string]jobState) int {
	n := 0
	for _, j := range jobs {
		if j.finished() != "" {
			n++
		}
	}
	return n
}

// describe is what a failing test shows of the namespace: its pods and
// their events.
func (c *cluster) describe(ns string) string {
	out, _ := c.kubectlCmd("get", "pods,jobs", "-n", ns, "-o", "wide").CombinedOutput()
	ev, _ := c.kubectlCmd("get", "events", "-n", ns, "--sort-by=.lastTimestamp").CombinedOutput()
	if len(ev) > 6000 {
		ev = ev[len(ev)-6000:]
	}
	return string(out) + "\n" + string(ev)
}

// logs are a pod's containers' logs, for a failing test.
func (c *cluster) logs(ns, selector string) string {
	out, _ := c.kubectlCmd("logs", "-n", ns, "-l", selector, "--all-containers", "--tail=40", "--prefix").CombinedOutput()
	return string(out)
}

// Images the test builds with podman and loads into the cluster.
const (
	swetouchImage = "localhost/swetouch-k8s/swetouch:test"
	examplesImage = "localhost/swetouch-k8s/examples:1"
	// the staging pod's image, as eval writes it: busybox-static's
	// binary under the name, so nothing is pulled
	stageImage = "docker.io/library/busybox:1.36"
)

// binaries builds swetouch and the shim as deploy/Dockerfile says (static)
// into dir.
func binaries(t *testing.T, dir string) {
	t.Helper()
	for _, b := range []struct{ name, cgo string }{{"swetouch", "0"}, {"swetouch-shim", "1"}} {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(dir, b.name), "github.com/swetouch/swetouch/cmd/"+b.name)
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+b.cgo)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.name, err, out)
		}
	}
}

// podmanBuild builds tag from a Containerfile and a context folder.
func podmanBuild(t *testing.T, tag, containerfile, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(containerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("podman", "build", "--network", "host", "-q", "-t", tag, "-f", filepath.Join(dir, "Containerfile"), dir)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("podman build %s: %v\n%s", tag, err, tailOf(log.Bytes(), 4000))
	}
}

func imageExists(tag string) bool { return exec.Command("podman", "image", "exists", tag).Run() == nil }

// images builds the test's images and loads them: the swetouch image from
// deploy/Dockerfile with binaries built now, the example tasks' image
// (Debian with Python, git and bubblewrap, and this machine's Go for
// go-stack's tests) and the staging pod's busybox.
func images(t *testing.T, c *cluster, bin string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for _, b := range []string{"swetouch", "swetouch-shim"} {
		copyFile(t, filepath.Join(bin, b), filepath.Join(dir, b), 0o755)
	}
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	podmanBuild(t, swetouchImage, string(dockerfile), dir)
	if !imageExists(stageImage) {
		bb, err := exec.LookPath("busybox")
		if err != nil {
			testsupport.Missing(t, testsupport.Kube, "the staging pod's image needs busybox (Debian: busybox-static)")
		}
		d := t.TempDir()
		copyFile(t, bb, filepath.Join(d, "busybox"), 0o755)
		podmanBuild(t, stageImage, "FROM scratch\nCOPY busybox /bin/busybox\nRUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n", d)
	}
	if !imageExists(examplesImage) {
		rt, err := container.Find(container.Podman, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		cache, err := container.CacheDir()
		if err != nil {
			t.Fatal(err)
		}
		base, err := container.Base(ctx, rt, cache, "", io.Discard)
		if err != nil {
			testsupport.Missing(t, testsupport.Kube, "the example tasks' image needs the Debian base: %v", err)
		}
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Fatal(err)
		}
		d := t.TempDir()
		if out, err := exec.Command("cp", "-a", strings.TrimSpace(string(goroot)), filepath.Join(d, "go")).CombinedOutput(); err != nil {
			t.Fatalf("copying Go: %v %s", err, out)
		}
		podmanBuild(t, examplesImage, "FROM "+base+"\n"+
			"RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-pytest git bubblewrap ca-certificates && rm -rf /var/lib/apt/lists/*\n"+
			"COPY go /usr/local/go\n"+
			"ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n", d)
	}
	c.load(t, swetouchImage, stageImage, examplesImage)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

func tailOf(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

package redteam

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// TestPerUIDLimitsPerTrial: two trials run at once through eval. Trial
// py-hog's agent takes every inotify instance its uid may have and holds
// them for 6 s; trial py-honest's agent, meanwhile, makes folders (its
// watcher adds a watch for each), opens an inotify instance of its own
// (as an agent's file watcher does) and fixes the task. Each trial runs as
// a host uid of its own (result.json's limits.uid), so the honest trial
// has its instances and resolves. (On one uid for both, the hog took
// swetouch's own 128 too; not rerun here, since on a shared machine that
// takes every root process's inotify instances for the 6 s.)
func TestPerUIDLimitsPerTrial(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a uid per trial needs swetouch to run as root")
	}
	f := newFixture(t)
	// the test's folders are root's alone; a trial's uid must reach the
	// plans and swetouch
	for _, p := range []string{filepath.Dir(f.out), bin} {
		for d := p; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			os.Chmod(d, 0o711)
		}
	}
	tasks, plans := filepath.Join(filepath.Dir(f.out), "trials"), filepath.Join(filepath.Dir(f.out), "plans")
	os.MkdirAll(tasks, 0o755)
	os.MkdirAll(plans, 0o755)
	trialTask(t, f, tasks, "py-hog")
	trialTask(t, f, tasks, "py-honest")
	plan(t, plans, "py-hog", `python3 - <<'EOF'
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
start, held = time.time(), []
while True:
    fd = libc.inotify_init()
    if fd < 0:
        break
    held.append(fd)
print("hog held", len(held), flush=True)
while time.time() - start < 6:
    time.sleep(0.05)
print("HOG", start, time.time())
EOF`)
	plan(t, plans, "py-honest", `python3 - <<'EOF'
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
start, failures, i = time.time(), [], 0
while time.time() - start < 6:
    fd = libc.inotify_init()
    if fd < 0:
        failures.append(os.strerror(ctypes.get_errno()))
    else:
        os.close(fd)
    if i < 20:
        os.makedirs("notes/d%d" % i)
        open("notes/d%d/n.txt" % i, "w").write("x\n")
    i += 1
    time.sleep(0.05)
print("HONEST", start, time.time())
print("honest inotify failures:", len(failures), failures[:1])
EOF`, "python3 - <<'EOF'\n"+fix+"EOF")
	cmd := exec.Command(filepath.Join(bin, "swetouch"), "eval", "--tasks", tasks, "--agent", "naive", "--conditions", "vanilla",
		"--plans", plans, "--out", f.out, "--concurrency", "2")
	// tools under root's home (pyenv, ~/go/bin) would leave the trials on
	// swetouch's uid, said in uid_shared: the system's alone here
	cmd.Env = append(os.Environ(), "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	logs, uids := map[string]string{}, map[string]int{}
	for _, name := range []string{"py-hog", "py-honest"} {
		trial := filepath.Join(f.out, "naive", "vanilla", name, "run-0")
		b, err := os.ReadFile(filepath.Join(trial, "agent.log"))
		if err != nil {
			t.Fatal(err)
		}
		logs[name] = string(b)
		var res result.Run
		rb, _ := os.ReadFile(filepath.Join(trial, result.File))
		if err := json.Unmarshal(rb, &res); err != nil || res.Limits == nil {
			t.Fatalf("%s: result %v: %s", name, err, rb)
		}
		if res.Limits.UID == 0 {
			t.Fatalf("%s ran on swetouch's uid: %s", name, res.Limits.SharedUID)
		}
		uids[name] = res.Limits.UID
		if name == "py-honest" && resolved(res) != "true" {
			t.Errorf("the honest trial: resolved %s\n%s", resolved(res), b)
		}
	}
	if uids["py-hog"] == uids["py-honest"] {
		t.Fatalf("both trials ran as uid %d", uids["py-hog"])
	}
	hStart, hEnd, okH := window(logs["py-hog"], "HOG")
	oStart, oEnd, okO := window(logs["py-honest"], "HONEST")
	if !okH || !okO {
		t.Fatalf("the trials did not report their windows:\nhog: %s\nhonest: %s", logs["py-hog"], logs["py-honest"])
	}
	if hStart >= oEnd || oStart >= hEnd {
		t.Fatalf("the trials did not overlap (hog %.2f-%.2f, honest %.2f-%.2f): the test proves nothing", hStart, hEnd, oStart, oEnd)
	}
	if !strings.Contains(logs["py-hog"], "hog held 12") {
		t.Errorf("the hog did not take its uid's inotify instances:\n%s", logs["py-hog"])
	}
	if !strings.Contains(logs["py-honest"], "honest inotify failures: 0") {
		t.Errorf("the honest agent lost inotify instances to the hog:\n%s", logs["py-honest"])
	}
}

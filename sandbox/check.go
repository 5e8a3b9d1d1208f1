package sandbox

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/swetouch/swetouch/internal/atomicfile"
)

// Check reports whether sandboxes can be made here: bwrap is installed
// and the kernel lets it make its namespaces. It runs bwrap once, unless
// a check under the same conditions (probeKey) passed before on this
// boot: that run cost a sandboxed `swetouch run` a third of what the
// sandbox added to its start. Should bwrap fail all the same, the
// sandbox's Wait says so (a SetupError, never the command's failure),
// and the check is forgotten.
func (r *Runner) Check() error {
	r.once.Do(func() {
		bw := r.bwrap()
		path, err := exec.LookPath(bw)
		if err != nil {
			r.err = fmt.Errorf("%w: bwrap not found (Debian: apt-get install bubblewrap), or run with --no-sandbox: %v", ErrUnavailable, err)
			return
		}
		// the key only where there is a file to keep it in
		file := r.rememberIn()
		key, keyed := "", false
		if file != "" {
			key, keyed = probeKey(path)
		}
		if keyed {
			if b, err := os.ReadFile(file); err == nil && string(b) == key {
				return
			}
		}
		// --disable-userns (bwrap 0.8 or later) and a network namespace, as
		// every sandbox asks
		out, err := exec.Command(bw, "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--cap-drop", "ALL", "--disable-userns",
			"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true").CombinedOutput()
		if err != nil {
			r.err = fmt.Errorf("%w: bwrap cannot make its namespaces here (%v: %s); in a container, allow user namespaces, or run with --no-sandbox", ErrUnavailable, err, strings.TrimSpace(string(out)))
			return
		}
		if keyed {
			remember(file, key)
		}
	})
	return r.err
}

// rememberIn is the file a passing check is kept in, "" for none.
func (r *Runner) rememberIn() string {
	switch r.Remember {
	case "-":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "swetouch", "bwrap-check")
	}
	return r.Remember
}

// forget drops a remembered check: a sandbox failed to be made.
func (r *Runner) forget() {
	if file := r.rememberIn(); file != "" {
		os.Remove(file)
	}
}

// remember keeps key in file, whole or not at all (best effort: a
// check not remembered is only run again).
func remember(file, key string) {
	if os.MkdirAll(filepath.Dir(file), 0o700) == nil {
		atomicfile.WriteBytes(file, 0o600, []byte(key))
	}
}

// probeKey names everything that decides whether bwrap can make its
// namespaces for this process: the bwrap executable, the kernel and this
// boot, who asks, from which namespaces, under which seccomp filters,
// no-new-privileges and capabilities, and the limits the kernel puts on
// user namespaces. false when one of them cannot be read: then nothing
// is remembered.
func probeKey(bwrap string) (string, bool) {
	info, err := os.Stat(bwrap)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "bwrap %s %d %d %v\n", bwrap, info.Size(), info.ModTime().UnixNano(), info.Mode())
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "", false
	}
	fmt.Fprintf(h, "kernel %s %s\nids %d %d\n", unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:]), os.Geteuid(), os.Getegid())
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", false
	}
	fmt.Fprintf(h, "boot %s", boot)
	for _, ns := range []string{"user", "mnt", "pid", "cgroup"} {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			return "", false
		}
		fmt.Fprintf(h, "ns %s\n", l)
	}
	// absent where the kernel has no such knob: absent is a value too
	for _, knob := range []string{"/proc/sys/user/max_user_namespaces", "/proc/sys/user/max_mnt_namespaces",
		"/proc/sys/user/max_pid_namespaces", "/proc/sys/kernel/unprivileged_userns_clone",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
		b, err := os.ReadFile(knob)
		fmt.Fprintf(h, "knob %s %q %v\n", knob, b, err == nil)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		l := sc.Text()
		for _, field := range []string{"Seccomp:", "Seccomp_filters:", "NoNewPrivs:", "CapEff:", "CapBnd:"} {
			if strings.HasPrefix(l, field) {
				fmt.Fprintln(h, l)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

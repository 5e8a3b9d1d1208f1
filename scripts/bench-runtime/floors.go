// The floors the shim is measured against: a C wrapper that asks a
// listener and tells it after, and the same in Go.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// cFloor builds the smallest wrapper that does what the shim's fast path
// must, without a session: a static C program that spawns bash with its
// arguments, waits, and exits with its status. What it adds is what any
// wrapper costs here, the floor of the shim's added time. With ask, it
// also asks a listener first (the socket BENCH_ASK_SOCKET names: one line
// out, one line back) and tells it after (one line, unanswered): the
// least a wrapper that reports to a hub costs.
func cFloor(tmp, bash string, ask bool) (string, error) {
	name := "cfloor"
	if ask {
		name = "cfloor-ask"
	}
	src := filepath.Join(tmp, name, "floor.c")
	os.MkdirAll(filepath.Dir(src), 0o755)
	// vfork, as the shim spawns: posix_spawn's child first sets each of
	// the 64 signals' dispositions, which costs a twentieth of bash here
	prog := `#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv) {
	pid_t pid; int st, hub = -1;
	sigset_t all, orig;
	argv[0] = "bash";
#ifdef ASK
	const char *sock = getenv("BENCH_ASK_SOCKET");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!sock || strlen(sock) >= sizeof a.sun_path) return 125;
	strcpy(a.sun_path, sock);
	hub = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (hub < 0 || connect(hub, (struct sockaddr *)&a, sizeof a) < 0) return 125;
	char c;
	if (write(hub, "b\n", 2) != 2) return 125;
	while (read(hub, &c, 1) == 1 && c != '\n') {
	}
#endif
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &orig);
	pid = vfork();
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &orig, 0);
		execve(` + strconv.Quote(bash) + `, argv, environ);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &orig, 0);
	if (pid < 0 || waitpid(pid, &st, 0) < 0) return 1;
	if (hub >= 0 && write(hub, "e\n", 2) != 2) return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, name, "bash")
	args := []string{src}
	if ask {
		args = append(args, "-DASK")
	}
	if err := ccStatic(bin, args...); err != nil {
		return "", err
	}
	return bin, nil
}

// ccStatic builds bin with cc, optimised and static, from args (sources
// and flags), as the shim's fast path is built.
func ccStatic(bin string, args ...string) error {
	out, err := exec.Command("cc", append([]string{"-O2", "-static", "-o", bin}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cc: %v: %s", err, out)
	}
	return nil
}

// askingWrapper builds the C floor that asks a listener before the
// command and tells it after, and starts the listener it asks (stop ends
// it): the way to run a script through that floor.
func askingWrapper(tmp, bash string) (w way, stop func(), err error) {
	floor, err := cFloor(tmp, bash, true)
	if err != nil {
		return way{}, nil, err
	}
	echo, err := listenerProcess(helperEcho)
	if err != nil {
		return way{}, nil, err
	}
	return way{floor, append(os.Environ(), "BENCH_ASK_SOCKET="+echo.sock)}, echo.stop, nil
}

// askingFloor measures the C floor that also asks a listener, which
// answers every line at once, before the command and tells it after.
func askingFloor(res *results, n int, tmp, ws, bash string, shim paired) error {
	asking, stop, err := askingWrapper(tmp, bash)
	if err != nil {
		return err
	}
	defer stop()
	f := pair(n, ws, bash, asking.shell, asking.env, "true")
	res.say("  floor of a wrapper that asks a hub: the C program asking a listener that answers at once, then telling it, added %.2f ms (%.2f× bash); the shim adds %.2f× that", ms(f.added), float64(f.added)/float64(f.direct), float64(shim.added)/float64(f.added))
	// no target: these pairs run in the hub's own process, which makes its
	// wake-ups cheaper than an agent's process sees them (the sandbox
	// part runs them in one of their own)
	return nil
}

// goFloor builds the smallest Go program that stands in for bash: it only
// execs it. What it adds is the cost of starting any Go binary here.
func goFloor(tmp, bash string) (string, error) {
	src := filepath.Join(tmp, "floor", "main.go")
	os.MkdirAll(filepath.Dir(src), 0o755)
	prog := "package main\n\nimport (\n\t\"os\"\n\t\"syscall\"\n)\n\nfunc main() {\n\tsyscall.Exec(" + strconv.Quote(bash) + ", os.Args, os.Environ())\n}\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, "floor", "bash")
	out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return bin, nil
}

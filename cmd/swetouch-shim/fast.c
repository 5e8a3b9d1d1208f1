// The shim's fast path: what shim does for `bash -c CMD` in a
// session, done in a constructor before the Go runtime starts. A Go
// program costs about 1.2 ms to start on this project's machines and an
// agent pays the shim's start-up on every command; this path costs what a
// small C program does. It handles the common case only (a -c command
// whose output is not a terminal, or any invocation to pass through) and
// returns, leaving everything as it found it, for the Go path to do the
// rest: a terminal, an error to report, SWETOUCH_SHIM_GO set.
//
// It speaks the session protocol as the Go shim does (docs/protocol.md):
// begin before the command, end after it with the output's head and
// tail, and the messages end returns printed after the command's output.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wire.h"

enum { MAX_CAPTURE = 16 << 10 }; // head and tail kept, as shim keeps

// --- the command line, the real shell, its environment ---

// command_of finds the command string of a -c invocation (bash's rule:
// the first argument after the options), as shim's commandOf does;
// its index in args, or -1 for anything else (a script, -i, -s). A
// login shell's command (bash -lc CMD) is one.
static int command_of(int n, char **args) {
	int saw_c = 0;
	for (int i = 0; i < n; i++) {
		const char *a = args[i];
		if (!strcmp(a, "--") || !strcmp(a, "-")) return saw_c && i + 1 < n ? i + 1 : -1;
		if (!strcmp(a, "-o") || !strcmp(a, "+o") || !strcmp(a, "-O") || !strcmp(a, "+O")) {
			i++;
		} else if (!strncmp(a, "--", 2)) {
			if (!strcmp(a, "--rcfile") || !strcmp(a, "--init-file")) return -1;
		} else if (strlen(a) > 1 && (a[0] == '-' || a[0] == '+')) {
			if (strpbrk(a + 1, "is")) return -1;
			saw_c = saw_c || strchr(a + 1, 'c');
		} else {
			return saw_c ? i : -1; // before -c: a script file
		}
	}
	return -1;
}

static int same_file(const char *p, const struct stat *st) {
	struct stat s;
	return st && stat(p, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino;
}

// clean writes the directory name s (n bytes) as filepath.Clean would
// have it, as far as comparing PATH entries needs: no repeated or
// trailing slashes, no "." elements.
static void clean(const char *s, size_t n, struct buf *out) {
	out->n = 0;
	if (n > 0 && s[0] == '/') buf_put(out, "/", 1);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && s[j] != '/') j++;
		if (j > i && !(j - i == 1 && s[i] == '.')) {
			if (out->n > 0 && out->p[out->n - 1] != '/') buf_put(out, "/", 1);
			buf_put(out, s + i, j - i);
		}
		i = j + 1;
	}
	if (out->n == 0) buf_put(out, ".", 1);
}

// self_stat is the shim's own file: the name it was started by, which
// the kernel keeps (one stat, where /proc/self/exe is three times that),
// else /proc/self/exe.
static int self_stat(struct stat *st) {
	const char *fn = (const char *)getauxval(AT_EXECFN);
	return (fn && stat(fn, st) == 0) || stat("/proc/self/exe", st) == 0;
}

// real_shell finds the shell the shim stands in for, as shim's
// RealShell does: SWETOUCH_REAL_SHELL, else name on PATH, skipping the
// shim directory and the shim itself. The shim directory is passed over
// by its name, with no stat; each other PATH entry costs one stat (most
// have no such file), and the shim's own identity is looked at only for a
// file found.
static int real_shell(const char *name, char *out, size_t size) {
	const char *env = getenv("SWETOUCH_REAL_SHELL");
	if (env && *env) return snprintf(out, size, "%s", env) < (int)size;
	// a sandbox that puts the shim at /bin/sh keeps the real shells here
	// (shim.RealShellDir); elsewhere it is not there, one failed access
	if (snprintf(out, size, "/run/swetouch-shells/%s", name) < (int)size && access(out, X_OK) == 0) return 1;
	const char *skip = getenv("SWETOUCH_SHIM_DIR");
	struct buf skipc = {0}, dirc = {0};
	if (skip && *skip) clean(skip, strlen(skip), &skipc);
	struct stat self, dir;
	int have_self = -1, have_dir = -1;
	const char *path = getenv("PATH");
	for (const char *d = path ? path : ""; *d;) {
		const char *e = strchrnul(d, ':');
		size_t dn = (size_t)(e - d);
		struct stat s;
		if (dn > 0 && skipc.n > 0) clean(d, dn, &dirc);
		int named_skip = dn > 0 && skipc.n > 0 && !skipc.bad && !dirc.bad && strcmp(dirc.p, skipc.p) == 0;
		if (dn > 0 && !named_skip && dn + strlen(name) + 2 <= size) {
			snprintf(out, size, "%.*s/%s", (int)dn, d, name);
			if (stat(out, &s) == 0 && !S_ISDIR(s.st_mode) && (s.st_mode & 0111)) {
				if (have_self < 0) have_self = self_stat(&self);
				if (have_dir < 0) have_dir = skip && *skip && stat(skip, &dir) == 0;
				out[dn] = 0; // the directory, for a moment
				int in_skip = have_dir && same_file(out, &dir); // the shim directory by another name
				out[dn] = '/';
				if (!in_skip && !(have_self && s.st_dev == self.st_dev && s.st_ino == self.st_ino)) {
					free(skipc.p), free(dirc.p);
					return 1;
				}
			}
		}
		d = *e ? e + 1 : e;
	}
	free(skipc.p), free(dirc.p);
	const char *dirs[] = {"/bin/", "/usr/bin/"};
	for (int i = 0; i < 2; i++) {
		snprintf(out, size, "%s%s", dirs[i], name);
		if (access(out, F_OK) != 0) continue;
		if (have_self < 0) have_self = self_stat(&self);
		if (!(have_self && same_file(out, &self))) return 1; // the shim may stand at /bin/bash
	}
	return 0;
}

// child_env is the command's environment: the agent's, with the shim
// directory taken off PATH (see shim's childEnv for why).
// Every shell started within the command is part of it: INSIDE marks
// the environment for the shim where it stands at /bin/bash.
static const char INSIDE[] = "SWETOUCH_SHIM_INSIDE=";

static char **child_env(char **envp, const char *shim_dir) {
	int skip_path = shim_dir && *shim_dir;
	size_t n = 0;
	while (envp[n]) n++;
	char **out = calloc(n + 2, sizeof *out);
	if (!out) return envp;
	struct buf skip = {0}, dir = {0};
	if (skip_path) clean(shim_dir, strlen(shim_dir), &skip);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(envp[i], INSIDE, sizeof INSIDE - 1) == 0) continue;
		char **slot = &out[k++];
		*slot = envp[i];
		if (!skip_path || strncmp(envp[i], "PATH=", 5) != 0) continue;
		struct buf p = {0};
		buf_puts(&p, "PATH=");
		int first = 1;
		for (const char *d = envp[i] + 5;;) {
			const char *e = strchrnul(d, ':');
			clean(d, (size_t)(e - d), &dir);
			if (skip.bad || dir.bad || strcmp(dir.p, skip.p) != 0) {
				if (!first) buf_put(&p, ":", 1);
				buf_put(&p, d, (size_t)(e - d));
				first = 0;
			}
			if (!*e) break;
			d = e + 1;
		}
		if (!p.bad) *slot = p.p;
	}
	out[k] = (char *)"SWETOUCH_SHIM_INSIDE=1";
	return out;
}

// --- running the command ---

// capture keeps the head and tail of the command's output, in the order
// it arrived, as shim's capture does: the first bytes, and a ring
// of the last ones after them.
struct capture {
	char head[MAX_CAPTURE], tail[MAX_CAPTURE];
	size_t headn, after; // after: bytes past the head (the ring's write count)
};

static void capture(struct capture *c, const char *p, size_t n) {
	if (c->headn < MAX_CAPTURE) {
		size_t k = n < MAX_CAPTURE - c->headn ? n : MAX_CAPTURE - c->headn;
		memcpy(c->head + c->headn, p, k);
		c->headn += k;
		p += k, n -= k;
	}
	if (n > MAX_CAPTURE) { // only the last ones can stay
		c->after += n - MAX_CAPTURE;
		p += n - MAX_CAPTURE, n = MAX_CAPTURE;
	}
	while (n > 0) {
		size_t at = c->after % MAX_CAPTURE, k = n < MAX_CAPTURE - at ? n : MAX_CAPTURE - at;
		memcpy(c->tail + at, p, k);
		c->after += k;
		p += k, n -= k;
	}
}

static volatile sig_atomic_t child_pgid;

// forward passes a signal to the command's process group, as the Go shim
// does.
static void forward(int sig) {
	int saved = errno;
	if (child_pgid > 0) kill(-child_pgid, sig);
	errno = saved;
}

// fwd are the signals passed on to the command's process group.
static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// onto makes fd the descriptor to (for the child; from is close-on-exec).
static int onto(int from, int to) {
	return from == to ? fcntl(to, F_SETFD, 0) : dup2(from, to);
}

// spawn_shell starts the real shell as posix_spawn would with
// SETPGROUP and SETSIGMASK: in a process group of its own, output on out
// and err, the agent's signal mask (mask). It returns 0 or the errno of
// what failed. posix_spawn's child sets the disposition of each of the 64
// signals first, some 130 system calls while the parent waits: a twentieth
// of bash's own start on this project's machines. Here the child resets
// only the handlers the shim installed (installed, a bit for each of fwd;
// exec resets them anyway), with every signal held until just before exec
// so that none runs a handler in the child, which shares the parent's
// memory until it execs (vfork).
static int spawn_shell(pid_t *pid, const char *real, char **argv, char **envp, int out, int err,
                       const sigset_t *mask, int installed) {
	sigset_t all, held;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &held);
	volatile int failed = 0;
	pid_t p = vfork();
	if (p == 0) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigemptyset(&dfl.sa_mask);
		for (int i = 0; i < 4; i++)
			if (installed & (1 << i)) sigaction(fwd[i], &dfl, NULL);
		if (setpgid(0, 0) < 0 || onto(out, 1) < 0 || onto(err, 2) < 0) {
			failed = errno;
			_exit(127);
		}
		sigprocmask(SIG_SETMASK, mask, NULL);
		execve(real, argv, envp);
		failed = errno;
		_exit(127);
	}
	int e = p < 0 ? errno : failed;
	sigprocmask(SIG_SETMASK, &held, NULL);
	if (p > 0 && e != 0) {
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR) {
		}
	}
	*pid = p;
	return e;
}

static const char *signal_name(int sig, char *buf, size_t n) {
	// as Go's syscall.Signal.String says them, which the hub records
	static const char *names[] = {
	    "hangup", "interrupt", "quit", "illegal instruction", "trace/breakpoint trap", "aborted", "bus error",
	    "floating point exception", "killed", "user defined signal 1", "segmentation fault", "user defined signal 2",
	    "broken pipe", "alarm clock", "terminated", "stack fault", "child exited", "continued", "stopped (signal)",
	    "stopped", "stopped (tty input)", "stopped (tty output)", "urgent I/O condition", "CPU time limit exceeded",
	    "file size limit exceeded", "virtual timer expired", "profiling timer expired", "window changed",
	    "I/O possible", "power failure", "bad system call"};
	if (sig >= 1 && sig <= 31) return names[sig - 1];
	snprintf(buf, n, "signal %d", sig);
	return buf;
}

static void exec_real(const char *real, const char *argv0, char **argv, char **envp) {
	argv[0] = (char *)argv0;
	execve(real, argv, envp);
	fprintf(stderr, "swetouch shell: exec %s: %s\n", real, strerror(errno));
	_exit(127);
}

// same_pipe reports whether two descriptors are one pipe or socket (an
// agent that reads a command's stdout and stderr together). Files are
// left apart: two descriptors of one file may have offsets of their own.
static int same_pipe(int a, int b) {
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && (S_ISFIFO(sa.st_mode) || S_ISSOCK(sa.st_mode)) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// working_dir is the directory the command runs in, named as Go's
// os.Getwd names it: $PWD when it is this directory (the name the agent
// gave it, through symbolic links), else the kernel's name for it.
static const char *working_dir(char *buf, size_t n) {
	const char *pwd = getenv("PWD");
	struct stat here, there;
	if (pwd && pwd[0] == '/' && stat(".", &here) == 0 && stat(pwd, &there) == 0 && here.st_dev == there.st_dev &&
	    here.st_ino == there.st_ino)
		return pwd;
	return getcwd(buf, n);
}

// send_end tells the hub the command ended with status (and the signal
// sig, when not 0) and what it wrote, and prints the messages it returns.
// When begin said the hub is not armed, no message can come: the end goes
// without waiting for the answer (the hub takes it before the agent's
// next command all the same).
static void send_end(int hub, const struct reply *begun, int status, int sig, const struct capture *cap) {
	struct buf end = {0};
	char name[32];
	buf_puts(&end, "{\"op\":\"end\",\"id\":");
	buf_int(&end, begun->id);
	if (!begun->armed) buf_puts(&end, ",\"noreply\":true");
	buf_puts(&end, ",\"end\":{\"exit\":");
	buf_int(&end, status);
	if (sig) {
		buf_puts(&end, ",\"signal\":");
		const char *s = signal_name(sig, name, sizeof name);
		buf_json(&end, s, strlen(s));
	}
	size_t after = cap->after, total = cap->headn + cap->after;
	if (after <= MAX_CAPTURE) {
		if (total > 0) {
			struct buf all = {0};
			buf_put(&all, cap->head, cap->headn);
			buf_put(&all, cap->tail, after);
			buf_puts(&end, ",\"output\":");
			buf_json(&end, all.p, all.n);
			free(all.p);
		}
	} else {
		struct buf tail = {0};
		size_t start = after % MAX_CAPTURE;
		buf_put(&tail, cap->tail + start, MAX_CAPTURE - start);
		buf_put(&tail, cap->tail, start);
		buf_puts(&end, ",\"output\":");
		buf_json(&end, cap->head, cap->headn);
		buf_puts(&end, ",\"tail\":");
		buf_json(&end, tail.p, tail.n);
		buf_puts(&end, ",\"elided\":true");
		free(tail.p);
	}
	if (total > 0) {
		buf_puts(&end, ",\"bytes\":");
		buf_int(&end, (long)total);
	}
	buf_puts(&end, "}}\n");
	if (!begun->armed) {
		if (!end.bad) send_all(hub, end.p, end.n);
		return;
	}
	struct reply ended = {0};
	if (hub_call(hub, &end, &ended) == 0 && ended.said.n > 0) write_all(1, ended.said.p, ended.said.n);
}

// run runs the command under the hub and does not return. The real shell
// (name) is looked for while the hub takes the begin: its PATH walk, a
// stat an entry, costs as much as the hub's answer takes to come.
// undumpable makes the shim non-dumpable before it holds a hub
// connection, so no other process of its uid can ptrace it or take its
// descriptors (pidfd_getfd); not in the initial user namespace, where an
// unprivileged hub could no longer read its /proc/PID/exe (shim's
// Undumpable says why).
static void undumpable(void) {
	struct stat st;
	if (stat("/proc/self/ns/user", &st) == 0 && st.st_ino == 0xEFFFFFFDu) return;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// token_slot is where a session's copy of the shim carries its token (see
// session/wire's token.go): the marker, then 64 bytes of hex the copy's
// maker wrote over the dots, then the hub's socket the copy dials, whatever
// SWETOUCH_SOCKET says (a socket of the agent's would be handed the
// token). volatile: read as the file holds it, never folded by the
// compiler.
static const volatile char token_slot[] = "swetouch-session-token:"
                                          "................................................................"
                                          "................................................................"
                                          "............................................";
enum { TOKEN_AT = sizeof "swetouch-session-token:" - 1, TOKEN_LEN = 64, SOCKET_LEN = 108 };

// hello puts the session's hello line, the first of every connection the
// shim opens, when this copy carries a token, and points sock at its
// hub's socket.
static void hello(struct buf *req, const char **sock) {
	static char t[TOKEN_LEN + SOCKET_LEN + 1];
	int dots = 0;
	for (int i = 0; i < TOKEN_LEN + SOCKET_LEN; i++) {
		t[i] = token_slot[TOKEN_AT + i];
		dots += i < TOKEN_LEN && t[i] == '.';
	}
	if (dots == TOKEN_LEN) return;
	buf_puts(req, "{\"op\":\"hello\",\"token\":\"");
	buf_put(req, t, TOKEN_LEN);
	buf_puts(req, "\"}\n");
	*sock = t + TOKEN_LEN; // NUL-padded, and t's last byte stays 0
}

static void run(const char *sock, const char *name, const char *argv0, char **argv, char **envp, const char *command) {
	undumpable();
	struct buf req = {0};
	hello(&req, &sock); // in the same write as the begin
	char cwd[4096];
	const char *wd = working_dir(cwd, sizeof cwd);
	buf_puts(&req, "{\"op\":\"begin\",\"begin\":{\"command\":");
	buf_json(&req, command, strlen(command));
	if (wd) {
		buf_puts(&req, ",\"cwd\":");
		buf_json(&req, wd, strlen(wd));
	}
	buf_puts(&req, ",\"source\":\"shell\"}}\n");
	// the request is ready before the hub is dialled, so that it is there
	// when the hub takes the connection: a hub that reads an empty socket
	// parks, and waking it again costs more than the begin's own work
	char real[4096];
	int hub = hub_dial(sock);
	if (hub < 0) {
		// the hub is gone: behave as bash, and say so, since nothing
		// will record this command (the Go path prints the same)
		dprintf(2, "swetouch shell: the session hub at %s cannot be reached: this command is not recorded\n", sock);
		if (!real_shell(name, real, sizeof real)) return;
		exec_real(real, argv0, argv, envp);
	}
	// the hub's answer to begin comes while the pipes and signals are set
	// up: the command itself starts only after it
	int told = !req.bad && send_all(hub, req.p, req.n) == 0;
	int found = real_shell(name, real, sizeof real);

	// one pipe when the agent reads stdout and stderr from one pipe (2>&1):
	// the command's writes then reach it in the order bash made them
	int merged = same_pipe(1, 2);
	int out[2], err[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) < 0 || (!merged && pipe2(err, O_CLOEXEC) < 0)) {
		fprintf(stderr, "swetouch shell: %s\n", strerror(errno));
		_exit(126);
	}
	sigset_t block, orig;
	sigemptyset(&block);
	for (int i = 0; i < 4; i++) sigaddset(&block, fwd[i]);
	sigprocmask(SIG_BLOCK, &block, &orig); // held until the child's group exists
	struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	int installed = 0; // which of fwd have forward as their handler
	for (int i = 0; i < 4; i++) {
		struct sigaction old;
		sigaction(fwd[i], NULL, &old);
		if (old.sa_handler != SIG_IGN) { // an ignored one stays so, for the child too
			sigaction(fwd[i], &sa, NULL);
			installed |= 1 << i;
		}
	}

	struct reply begun = {0};
	int hub_ok = told && hub_answer(hub, &begun) == 0;
	static struct capture cap;
	if (!found) {
		// as the Go path says it; the hub has the begin, so it gets an end
		fprintf(stderr, "swetouch shell: no real %s found\n", name);
		if (hub_ok) send_end(hub, &begun, 127, 0, &cap);
		_exit(127);
	}

	argv[0] = (char *)argv0;
	pid_t pid;
	int e = spawn_shell(&pid, real, argv, child_env(envp, getenv("SWETOUCH_SHIM_DIR")), out[1],
	                    merged ? out[1] : err[1], &orig, installed);
	if (e != 0) {
		char said[4200];
		snprintf(said, sizeof said, "swetouch shell: fork/exec %s: %s\n", real, strerror(e));
		fputs(said, stderr);
		if (hub_ok) {
			// the hub has the begin: what the agent saw is the output
			capture(&cap, said, strlen(said));
			send_end(hub, &begun, 126, 0, &cap);
		}
		_exit(126);
	}
	child_pgid = pid;
	sigprocmask(SIG_SETMASK, &orig, NULL);
	close(out[1]);
	if (!merged) close(err[1]);

	struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}}; // a merged one: fd -1, never ready
	for (int open = merged ? 1 : 2; open > 0;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR) continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !fds[i].revents) continue;
			char chunk[32 << 10];
			ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
			if (n < 0 && errno == EINTR) continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open--;
				continue;
			}
			write_all(i + 1, chunk, (size_t)n); // unchanged, as it is produced
			capture(&cap, chunk, (size_t)n);
		}
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
	}
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	int status = sig ? 128 + sig : WEXITSTATUS(st);

	if (hub_ok) send_end(hub, &begun, status, sig, &cap);
	close(hub);
	if (sig) {
		// die the way the shell died
		signal(sig, SIG_DFL);
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
	_exit(status);
}

// agent_script reports whether the script at path may be one of the
// agent's (shim's agentScript decides): not under the system's folders
// nor in a folder on PATH. It errs towards yes, which costs only the Go
// runtime's start.
static int agent_script(const char *path) {
	char real[4096];
	if (getppid() == 1) return 1; // the agent itself, started by the sandbox's pid 1
	const char *tool = getenv("SWETOUCH_TOOL_PID");
	if (tool && atoi(tool) == getpid()) return 0; // exec'd by a tool's script: its internals
	if (access(path, W_OK) != 0) return 0; // a file the agent cannot change is a tool's
	if (!realpath(path, real)) return 0; // no such script: the shell says so
	static const char *sys[] = {"/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/etc/", "/opt/"};
	for (size_t i = 0; i < sizeof sys / sizeof *sys; i++)
		if (!strncmp(real, sys[i], strlen(sys[i]))) return 0;
	char *slash = strrchr(real, '/');
	if (!slash) return 1;
	*slash = 0;
	const char *dir = slash == real ? "/" : real;
	struct buf c = {0};
	const char *path_env = getenv("PATH");
	for (const char *d = path_env ? path_env : ""; *d;) {
		const char *e = strchrnul(d, ':');
		if (e > d && *d == '/') {
			clean(d, (size_t)(e - d), &c);
			if (!c.bad && !strcmp(c.p, dir)) {
				free(c.p);
				return 0;
			}
		}
		d = *e ? e + 1 : e;
	}
	free(c.p);
	return 1;
}

// script_of reports whether a shell's arguments (n of them) run a script
// of the agent's, as shim's scriptOf reads them: a file named after the
// options, or a regular file on stdin (bash -s < do.sh). The Go path
// runs such a script, each of its commands a step.
static int script_of(int n, char **args) {
	int from_stdin = 0;
	for (int i = 0; i < n; i++) {
		const char *a = args[i];
		if (!strcmp(a, "--") || !strcmp(a, "-")) {
			if (i + 1 < n && !from_stdin) return agent_script(args[i + 1]);
			break;
		}
		if (!strcmp(a, "-o") || !strcmp(a, "+o") || !strcmp(a, "-O") || !strcmp(a, "+O")) {
			i++;
		} else if (!strncmp(a, "--", 2)) {
			if (strcmp(a, "--posix") && strcmp(a, "--norc") && strcmp(a, "--noprofile") && strcmp(a, "--noediting") &&
			    strcmp(a, "--restricted"))
				return 0;
		} else if (strlen(a) > 1 && (a[0] == '-' || a[0] == '+')) {
			if (strpbrk(a + 1, "cilDO")) return 0;
			if (strchr(a + 1, 's')) from_stdin = 1;
		} else {
			if (from_stdin) break;
			return agent_script(a);
		}
	}
	struct stat st;
	return fstat(0, &st) == 0 && S_ISREG(st.st_mode);
}

// swetouch_command reports whether command runs swetouch itself by path
// (a hook an agent starts through /bin/sh), as shim's swetouchCommand:
// it tells the hub about itself, and passes through.
static int swetouch_command(const char *command) {
	while (*command == ' ' || *command == '\t') command++;
	size_t n = strcspn(command, " \t\n;&|");
	while (n > 0 && (*command == '\'' || *command == '"')) command++, n--;
	while (n > 0 && (command[n - 1] == '\'' || command[n - 1] == '"')) n--;
	static const char name[] = "/swetouch";
	size_t k = sizeof name - 1;
	return n >= k && memcmp(command + n - k, name, k) == 0;
}

// is_shell reports whether name is a shell the shim stands in for (as
// shim.Shell).
static int is_shell(const char *name) {
	return !strcmp(name, "sh") || !strcmp(name, "bash") || !strcmp(name, "dash") || !strcmp(name, "rbash");
}

__attribute__((constructor)) static void swetouch_fast(int argc, char **argv, char **envp) {
	if (argc < 1 || getenv("SWETOUCH_SHIM_GO")) return;
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (strcmp(base, "swetouch-gocache") == 0) return; // the Go build cache's relay: Go's
	const char *argv0 = argv[0], *name = base;
	if (!is_shell(name)) {
		// started by another name: the path it was started by says which
		// shell it stands at (a sandbox binds it over /bin/sh), else bash
		const char *fn = (const char *)getauxval(AT_EXECFN), *fb = fn ? strrchr(fn, '/') : NULL;
		fb = fb ? fb + 1 : fn;
		if (fb && is_shell(fb)) {
			name = fb;
		} else {
			argv0 = name = "bash";
		}
	}
	char real[4096];
	int ci = command_of(argc - 1, argv + 1);
	const char *sock = getenv("SWETOUCH_SOCKET");
	const char *inside = getenv("SWETOUCH_SHIM_INSIDE");
	int watched = sock && *sock && !(inside && *inside) && !(ci >= 0 && swetouch_command(argv[1 + ci]));
	if (ci < 0 && watched && script_of(argc - 1, argv + 1)) return; // a script of steps: the Go path
	if (ci < 0 || !watched) {
		// not ours to watch
		if (!real_shell(name, real, sizeof real)) return; // the Go path says why
		if (ci < 0 && watched) {
			// a tool's script: a script it execs in this process is its
			// internals too (shim's toolPID)
			char pid[24];
			snprintf(pid, sizeof pid, "%d", (int)getpid());
			if (setenv("SWETOUCH_TOOL_PID", pid, 1) == 0) envp = environ;
		}
		exec_real(real, argv0, argv, envp);
	}
	if (isatty(1)) return; // a terminal stays a terminal: the Go path
	if (getppid() == 1) return; // perhaps the agent itself as bash -c SCRIPT: the Go path says
	run(sock, name, argv0, argv, envp, argv[1 + ci]);
}

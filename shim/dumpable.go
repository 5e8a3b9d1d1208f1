package shim

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// initUserNS is the inode of the initial user namespace's
// /proc/self/ns/user (PROC_USER_INIT_INO, fixed by the kernel).
const initUserNS = 0xEFFFFFFD

// Undumpable makes this process non-dumpable before it holds a hub
// connection, so another process of the same uid can neither ptrace it
// nor take its descriptors (pidfd_getfd): an agent that stole a shim's
// admitted connection could send the hub what only the shim may. Not in
// the initial user namespace (an unsandboxed run): there a hub without
// CAP_SYS_PTRACE could no longer read the shim's /proc/PID/exe to admit
// it, and nothing else holds the agent back anyway. In a sandbox the hub
// outside owns the sandbox's user namespace, so it still can. The C fast
// path does the same (fast.c, undumpable).
func Undumpable() {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/user", &st); err == nil && st.Ino == initUserNS {
		return
	}
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

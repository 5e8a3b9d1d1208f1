package sandbox

import (
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInherited marks every descriptor from 3 up close-on-exec. A
// descriptor the process inherited without that flag (a directory the
// caller of swetouch left open) would otherwise pass through bwrap into
// the sandbox, where /proc/self/fd/N/.. walks the host from it. Go opens
// its own descriptors close-on-exec and hands a child its ExtraFiles by
// dup2, so this changes nothing swetouch passes on purpose.
func CloseInherited() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	return cloexecEach()
}

// cloexecEach is CloseInherited where close_range has no CLOEXEC flag
// (Linux before 5.11): each descriptor /proc/self/fd lists, else each one
// below the open-file limit.
func cloexecEach() error {
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, e := range ents {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
				// the directory's own descriptor is gone by now: EBADF
				unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
			}
		}
		return nil
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	for fd := 3; uint64(fd) < min(lim.Cur, 1<<20); fd++ {
		unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
	}
	return nil
}

//go:build linux && race

package rawfd

import "syscall"

// In a race build, reads and writes go through package syscall: its
// annotations tell the race detector that what a goroutine wrote before
// a write is seen by the goroutine that read it (a hub and its client in
// one test process), which raw system calls would hide. The monitor
// thread's wake-ups do not matter there.

func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	return err.(syscall.Errno)
}

// noWaitWrites: a blocking descriptor is written through its own file,
// whose writes the detector sees.
const noWaitWrites = false

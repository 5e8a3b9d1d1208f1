//go:build linux && !race

package rawfd

import (
	"syscall"
	"unsafe"
)

// sysRead and sysWrite are read and write as raw system calls (the
// descriptor is non-blocking: neither can block).
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(r), e
}

func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(r), e
}

// noWaitWrites says whether a blocking descriptor is written with
// RWF_NOWAIT (see Writer).
const noWaitWrites = true

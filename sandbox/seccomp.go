package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refused are the system calls no sandboxed process may make (EPERM):
// those that reach into another process (ptrace, pidfd_getfd,
// process_vm_*: a running shim's admitted hub connection, the sandbox's
// pid 1), and the kernel's usual escape and attack surface (kexec, bpf,
// perf_event_open, userfaultfd, keys, file handles, modules, mounts).
// Nested user namespaces are bwrap's --disable-userns, which covers
// clone3 too (its flags are out of a filter's reach).
func refused() []string {
	return []string{
		"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
		"process_madvise", "move_pages", "migrate_pages",
		"kexec_load", "kexec_file_load", "bpf", "perf_event_open", "userfaultfd",
		"keyctl", "add_key", "request_key", "open_by_handle_at", "name_to_handle_at",
		"init_module", "finit_module", "delete_module",
		"mount", "umount2", "pivot_root", "setns", "fsopen", "fsconfig", "fsmount", "fspick",
		"move_mount", "open_tree", "mount_setattr",
		"swapon", "swapoff", "reboot", "acct", "iopl", "ioperm", "quotactl", "lookup_dcookie",
	}
}

// unsupported are refused as missing (ENOSYS), so that a library falls
// back as on an older kernel: io_uring runs its operations where no
// filter sees them.
func unsupported() []string {
	return []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}
}

// Filter is the seccomp program every sandboxed process runs under, as
// bwrap's --seccomp reads it (struct sock_filter after struct
// sock_filter, in the machine's byte order). A system call of another
// architecture than this build's (i386's int 0x80 on x86_64, whose
// numbers differ) is refused whole: a list of refused calls by number
// holds for one architecture only.
func Filter() ([]byte, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: %w", err)
	}
	known := func(names []string) []string {
		var out []string
		for _, n := range names {
			if _, ok := info.SyscallNames[n]; ok {
				out = append(out, n)
			}
		}
		return out
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
		{Names: known(refused()), Action: seccomp.ActionErrno},
		{Names: known(unsupported()), Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)},
	}}
	insts, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: %w", err)
	}
	// the policy's own guard lets another architecture's calls through to
	// its default action, allow: refuse them before it
	guard := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.EPERM)},
	}
	raw, err := bpf.Assemble(append(guard, insts...))
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: %w", err)
	}
	var b bytes.Buffer
	for _, in := range raw {
		binary.Write(&b, binary.NativeEndian, struct {
			Op     uint16
			Jt, Jf uint8
			K      uint32
		}{in.Op, in.Jt, in.Jf, in.K})
	}
	return b.Bytes(), nil
}

// filter is the program r's sandboxes run under: Filter, but for a test
// that takes it away (unfiltered) to reach the barrier behind it.
func (r *Runner) filter() ([]byte, error) {
	if r.unfiltered {
		// one instruction: return SECCOMP_RET_ALLOW
		return []byte{0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x7f}, nil
	}
	return Filter()
}

// filterFile is a pipe's read end holding prog, for bwrap to read whole.
func filterFile(prog []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	// a program of a few hundred instructions fits a pipe's buffer
	if _, err := w.Write(prog); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

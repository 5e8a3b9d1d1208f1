//go:build linux

package rawfd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// socketPair is a connected pair of stream sockets: ours in the poller,
// as the hub client dials it (non-blocking), and the peer's.
func socketPair(t *testing.T) (ours, peer *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.SetNonblock(fds[1], false)
	ours, peer = os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "peer")
	t.Cleanup(func() { ours.Close(); peer.Close() })
	return ours, peer
}

func nonBlocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	rc.Control(func(fd uintptr) { flags, _, _ = syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) })
	return flags&syscall.O_NONBLOCK != 0
}

// TestUnpolled: the socket leaves the poller (its file blocking, the old
// one closed) and still carries everything both ways: a line sent at
// once, a send larger than the socket holds (the rest waits for the peer
// to read), an answer read; a peer gone is a write's error, not a
// signal that ends the process.
func TestUnpolled(t *testing.T) {
	ours, peer := socketPair(t)
	f, w, err := Unpolled(ours)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if nonBlocking(t, f) {
		t.Error("the socket is still non-blocking: Go's poller still has it")
	}
	if _, err := ours.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the old file: %v, want it closed", err)
	}
	if _, err := w.Write([]byte("begin\n")); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(peer, line); err != nil || string(line) != "begin\n" {
		t.Fatalf("the peer read %q, %v", line, err)
	}

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, past any socket's buffer
	got := make(chan []byte)
	go func() {
		b := make([]byte, len(big))
		io.ReadFull(peer, b)
		got <- b
	}()
	if n, err := w.Write(big); n != len(big) || err != nil {
		t.Fatalf("the big send: %d of %d bytes, %v", n, len(big), err)
	}
	if !bytes.Equal(<-got, big) {
		t.Fatal("the big send arrived changed")
	}

	peer.Write([]byte("answer\n"))
	ans := make([]byte, 7)
	if _, err := io.ReadFull(f, ans); err != nil || string(ans) != "answer\n" {
		t.Fatalf("read %q, %v", ans, err)
	}

	peer.Close()
	var werr error
	for i := 0; i < 3 && werr == nil; i++ { // the first send after the close may still be taken
		_, werr = w.Write([]byte("end\n"))
	}
	if !errors.Is(werr, syscall.EPIPE) && !errors.Is(werr, syscall.ECONNRESET) {
		t.Errorf("a send to a peer gone: %v, want EPIPE", werr)
	}
}

package session

import (
	"context"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestUnread: a connection whose thread waits with nothing taken has
// nothing unread; once the client writes, it has, whether or not the
// thread has woken for it yet, until the line has been taken. The same
// whether it waits in the kernel (a shim's) or in Go's poller (a client
// that stays).
func TestUnread(t *testing.T) {
	for _, inPoller := range []bool{false, true} {
		t.Run(map[bool]string{false: "kernel", true: "poller"}[inPoller], func(t *testing.T) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			client := fds[1]
			defer syscall.Close(client)
			c := &fdConn{fd: fds[0]}
			defer c.close()
			if inPoller {
				c.waitInPoller()
				if c.pollConn == nil {
					t.Fatal("the connection did not move to the poller")
				}
			}
			if !c.unread() {
				t.Error("a thread that is not waiting has nothing unread")
			}
			got := make(chan string)
			go func() {
				b := make([]byte, 64)
				n, _ := c.Read(b)
				got <- string(b[:n])
			}()
			for !waiting(c) {
				runtime.Gosched()
			}
			if c.unread() {
				t.Error("unread while the thread waits and nothing came")
			}
			syscall.Write(client, []byte("end\n"))
			if !c.unread() { // the reader may or may not have woken: either way
				t.Error("nothing unread right after the client wrote")
			}
			if s := <-got; s != "end\n" {
				t.Errorf("read %q", s)
			}
		})
	}
}

func waiting(c *fdConn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting
}

// fakeOrigin is a connection whose end has come and not been taken
// until taken is set.
type fakeOrigin struct{ taken atomic.Bool }

func (o *fakeOrigin) unread() bool { return !o.taken.Load() }

// TestBeginAwaitsUnreadEnd: a begin waits for a running command whose
// connection holds an end the hub has not taken, and comes after it; the
// caller's own running commands do not hold it up.
func TestBeginAwaitsUnreadEnd(t *testing.T) {
	h, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := &fakeOrigin{}
	first, err := h.Begin(withOrigin(ctx, a), Begin{Command: "first"})
	if err != nil {
		t.Fatal(err)
	}
	// a's own next begin does not wait for a's end
	own, err := h.Begin(withOrigin(ctx, a), Begin{Command: "a's own"})
	if err != nil {
		t.Fatal(err)
	}
	begun := make(chan int)
	go func() {
		id, _ := h.Begin(ctx, Begin{Command: "next"})
		begun <- id
	}()
	for {
		select {
		case id := <-begun:
			t.Fatalf("begin %d did not wait for the unread end", id)
		default:
		}
		h.mu.Lock()
		w := h.waiting
		h.mu.Unlock()
		if w > 0 {
			break
		}
		runtime.Gosched()
	}
	a.taken.Store(true)
	if _, err := h.End(ctx, first, End{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.End(ctx, own, End{}); err != nil {
		t.Fatal(err)
	}
	if id := <-begun; id != 3 {
		t.Errorf("the waiting begin got id %d, want 3", id)
	}
	if s := h.Status(); s.Steps != 2 || s.Running != 1 {
		t.Errorf("status %+v: want 2 steps done, 1 running", s)
	}
}

// TestPeerIdentity: the raw reads of a client's pid and executable say
// what the kernel and /proc say, and a process gone is an error.
func TestPeerIdentity(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	pid, err := peerPid(fds[0])
	if err != nil || pid != os.Getpid() {
		t.Fatalf("peer pid %d, %v; want %d", pid, err, os.Getpid())
	}
	exe, err := exeOf(pid)
	want, _ := os.Readlink("/proc/self/exe")
	if err != nil || exe != want {
		t.Fatalf("exe %q, %v; want %q", exe, err, want)
	}
	if _, err := exeOf(1 << 30); err == nil {
		t.Error("the executable of a pid no process has was read")
	}
}

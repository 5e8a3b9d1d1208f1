//go:build linux

package rawfd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// blockingPipe is a pipe whose descriptors are in blocking mode, as an
// inherited stdout is (os.Pipe's are not).
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func pollPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// pipeKinds are the two kinds of pipe a relay writes: its peers' (from
// os/exec, in the poller) and its own inherited stdout (blocking).
func pipeKinds() []struct {
	name string
	pipe func(*testing.T) (*os.File, *os.File)
} {
	return []struct {
		name string
		pipe func(*testing.T) (*os.File, *os.File)
	}{
		{"poller's pipe", pollPipe},
		{"blocking pipe", blockingPipe},
	}
}

// TestWrap: only what can be read or written quietly is wrapped; the
// rest comes back as it went.
func TestWrap(t *testing.T) {
	pr, pw := pollPipe(t)
	br, bw := blockingPipe(t)
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var buf bytes.Buffer
	for _, c := range []struct {
		name      string
		got, same any
		quiet     bool
	}{
		{"poller's pipe, read end", Reader(pr), pr, true},
		{"poller's pipe, write end", Writer(pw), pw, true},
		{"blocking pipe, read end", Reader(br), br, false},
		{"blocking pipe, write end", Writer(bw), bw, noWaitWrites}, // a race build writes it as it is
		{"regular file, write", Writer(file), file, noWaitWrites},
		{"not a descriptor, read", Reader(&buf), &buf, false},
		{"not a descriptor, write", Writer(&buf), &buf, false},
	} {
		if wrapped := c.got != c.same; wrapped != c.quiet {
			t.Errorf("%s: wrapped %v, want %v", c.name, wrapped, c.quiet)
		}
	}
	if _, ok := Reader(pr).(io.Writer); ok {
		t.Error("a quiet reader is also a writer")
	}
}

// TestRegularFile: a regular file written quietly holds what was
// written, in order, at the file's position (O_APPEND's end, or after
// what the file itself wrote), whole past a page's and a write's size;
// and a write the descriptor refuses (a file opened to read) is the
// file's own error, not a short count.
func TestRegularFile(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []int{os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_WRONLY | os.O_CREATE | os.O_APPEND} {
		name := filepath.Join(dir, fmt.Sprint(flag))
		f, err := os.OpenFile(name, flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		w := Writer(f)
		if _, raw := w.(*regularFile); raw != noWaitWrites {
			t.Fatalf("flag %#x: %T, want raw writes (regularFile) but in a race build", flag, w)
		}
		var want []byte
		for i, n := range []int{1, 100, 4096, 5000, 1 << 20} {
			b := bytes.Repeat([]byte{byte('a' + i)}, n)
			if got, err := w.Write(b); err != nil || got != n {
				t.Fatalf("flag %#x: write %d: %d, %v", flag, n, got, err)
			}
			if _, err := f.Write([]byte("|")); err != nil { // the file's own write, between
				t.Fatal(err)
			}
			want = append(append(want, b...), '|')
		}
		f.Close()
		if got, _ := os.ReadFile(name); !bytes.Equal(got, want) {
			t.Errorf("flag %#x: the file holds %d bytes, want the %d written", flag, len(got), len(want))
		}
	}
	ro, err := os.Open(filepath.Join(dir, fmt.Sprint(os.O_WRONLY|os.O_CREATE|os.O_APPEND)))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n, err := Writer(ro).Write([]byte("x")); err == nil || n != 0 {
		t.Errorf("a write to a file opened to read: %d, %v; want 0 and the file's error", n, err)
	}
}

// TestRoundTrip: what goes in comes out, in order and whole, past a
// pipe's capacity (the writer waits for room in the poller, or through
// the file's own write) and to the reader's EOF.
func TestRoundTrip(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB, 16 pipe buffers
	for _, c := range pipeKinds() {
		t.Run(c.name, func(t *testing.T) {
			r, w := c.pipe(t)
			got := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(Reader(r))
				got <- b
			}()
			qw := Writer(w)
			for rest := payload; len(rest) > 0; {
				k := min(len(rest), 100<<10)
				n, err := qw.Write(rest[:k])
				if err != nil || n != k {
					t.Fatalf("write: %d of %d, %v", n, k, err)
				}
				rest = rest[k:]
			}
			w.Close()
			if b := <-got; !bytes.Equal(b, payload) {
				t.Fatalf("read %d bytes, want the %d written", len(b), len(payload))
			}
		})
	}
}

// TestBrokenPipe: a write to a pipe nobody reads is an error (EPIPE), not
// a crash and not a write that claims to have gone.
func TestBrokenPipe(t *testing.T) {
	for _, c := range pipeKinds() {
		t.Run(c.name, func(t *testing.T) {
			r, w := c.pipe(t)
			r.Close()
			n, err := Writer(w).Write([]byte("lost\n"))
			if n != 0 || !errors.Is(err, syscall.EPIPE) {
				t.Fatalf("wrote %d, %v; want 0 and EPIPE", n, err)
			}
		})
	}
}

// TestReadEOF: a quiet reader ends with io.EOF once the writer is gone,
// after what was written.
func TestReadEOF(t *testing.T) {
	r, w := pollPipe(t)
	w.Write([]byte("last"))
	w.Close()
	qr := Reader(r)
	b := make([]byte, 16)
	n, err := qr.Read(b)
	if n != 4 || err != nil || string(b[:n]) != "last" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
	if n, err := qr.Read(b); n != 0 || err != io.EOF {
		t.Fatalf("after the writer closed: %d, %v; want io.EOF", n, err)
	}
}

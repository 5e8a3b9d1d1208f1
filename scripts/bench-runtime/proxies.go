// The bench's own proxies and peers, run as helper processes: TCP and
// pipe copies that tell a listener, the listeners, and answering peers.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/swetouch/swetouch/internal/rawfd"
	"github.com/swetouch/swetouch/proxy"
)

// bytesOnly copies src to dst as it comes, a plain proxy's direction.
func bytesOnly(dst io.Writer, src io.Reader) { io.Copy(dst, src) }

// listenURL listens on a loopback port and prints its URL, the first
// line a helper prints.
func listenURL() net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	return l
}

// proxyTCP relays every connection l accepts to upstream, copying the
// client's bytes with toServer and the server's with toClient, each
// read and written quietly, as the relay reads and writes
// (internal/quietio).
func proxyTCP(l net.Listener, upstream string, toServer, toClient func(dst io.Writer, src io.Reader)) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				return
			}
			defer up.Close()
			go toServer(rawfd.Writer(up), rawfd.Reader(c))
			toClient(rawfd.Writer(c), rawfd.Reader(up))
		}()
	}
}

// proxyTold is the plain TCP proxy telling a listener of each request
// before it goes on and of each response once it is out (out of the
// poller; see pipeTold): what the relay tells its hub, once nothing can
// fire, of the HTTP part's call. Its tool (ping_tool) is none the relay
// knows to be a read, and a tool that may write is begun before it runs
// (Client.BeginQuiet, one line, unanswered), so that the files its server
// writes are the call's and not native edits; its end is told after
// (EndQuiet). The stdio part's call is a read the relay is sure of, told
// once after its result (pipeTold).
func proxyTold(sock, upstream string) {
	tell := teller(sock)
	l := listenURL()
	// pump copies src to dst read by read, telling before or after each
	pump := func(dst io.Writer, src io.Reader, before, after string) {
		b := make([]byte, 64<<10)
		for {
			n, err := src.Read(b)
			if n > 0 {
				if before != "" {
					tell(before)
				}
				if _, werr := dst.Write(b[:n]); werr != nil {
					return
				}
				if after != "" {
					tell(after)
				}
			}
			if err != nil {
				return
			}
		}
	}
	proxyTCP(l, upstream,
		func(dst io.Writer, src io.Reader) { pump(dst, src, "b\n", "") },
		func(dst io.Writer, src io.Reader) { pump(dst, src, "", "e\n") })
}

// proxyThreads is the plain TCP proxy with every wait a blocking system
// call on a thread of its own.
func proxyThreads(upstream string) {
	host, port, _ := net.SplitHostPort(upstream)
	p, _ := strconv.Atoi(port)
	up := &syscall.SockaddrInet4{Port: p}
	copy(up.Addr[:], net.ParseIP(host).To4())
	l, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err == nil {
		err = syscall.Bind(l, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	}
	if err == nil {
		err = syscall.Listen(l, 64)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sa, _ := syscall.Getsockname(l)
	fmt.Printf("http://127.0.0.1:%d\n", sa.(*syscall.SockaddrInet4).Port)
	pump := func(dst, src int) {
		b := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(src, b)
			if n <= 0 || err != nil {
				syscall.Shutdown(dst, syscall.SHUT_WR)
				return
			}
			for w := 0; w < n; {
				k, err := syscall.Write(dst, b[w:n])
				if err != nil {
					return
				}
				w += k
			}
		}
	}
	for {
		c, _, err := syscall.Accept4(l, syscall.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		u, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err == nil {
			err = syscall.Connect(u, up)
		}
		if err != nil {
			syscall.Close(c)
			continue
		}
		syscall.SetsockoptInt(c, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		syscall.SetsockoptInt(u, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		go pump(u, c)
		go pump(c, u)
	}
}

// pipeTold is the pipe copy that also tells a listener of each result,
// in one short unanswered line once the result has gone on, as the relay
// tells its hub of a call that changes no file once nothing can fire
// (Client.Told). A line before each request too, as it once had, put a
// wake-up of the listener on every request's way, which the relay does
// not pay: the floor then stood 15 to 40 µs above the least a relay that
// tells can cost here.
func pipeTold(sock string, command []string) {
	told, err := dialTold(sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	in, out, _, err := proxy.StartChild(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() { io.Copy(rawfd.Writer(in), rawfd.Reader(proxy.Pollable(os.Stdin))); in.Close() }()
	proxy.PipeThen(rawfd.Writer(os.Stdout), rawfd.Reader(out), nil, func() { told.Write([]byte("e\n")) })
	cmd.Wait()
}

// teller is a proxy's way of telling the listener at sock a line, from
// any of its connections' goroutines (it exits when it cannot connect).
func teller(sock string) func(line string) {
	told, err := dialTold(sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	return func(line string) {
		mu.Lock()
		told.Write([]byte(line))
		mu.Unlock()
	}
}

// dialTold connects to the listener at sock as the relay's hub client
// does once nothing can fire: out of Go's poller (quietio.Unpolled), so
// that the floor pays no wake-up the relay has shed.
func dialTold(sock string) (io.Writer, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	_, w, err := rawfd.Unpolled(os.NewFile(uintptr(fd), sock))
	return w, err
}

// nullListener prints a unix socket's path and reads from whoever
// connects until stdin closes, answering as kind says: helperListener
// never, helperEcho each line read, helperDrain as a hub nothing can fire
// on answers a relay (its first line, and a status).
func nullListener(kind string) {
	dir, err := os.MkdirTemp("", "bench-listener-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			switch kind {
			case helperEcho:
				go answerLines(c, func(int, []byte) string { return "{}\n" })
			case helperDrain:
				go answerLines(c, drainAnswer)
			default:
				go io.Copy(io.Discard, rawfd.Reader(c))
			}
		}
	}()
	fmt.Println(sock)
	io.Copy(io.Discard, os.Stdin)
}

// answerLines reads c's lines, writing what answer gives for each (the
// line's number from 1, and the line) unless that is empty.
func answerLines(c net.Conn, answer func(n int, line []byte) string) {
	r, w := bufio.NewReader(rawfd.Reader(c)), rawfd.Writer(c)
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull { // a long told line: only its end matters
				_, err = r.ReadSlice('\n')
			}
			line = nil
		}
		if err != nil {
			return
		}
		if a := answer(n, line); a != "" {
			w.Write([]byte(a))
		}
	}
}

// drainAnswer is helperDrain's answer: the first begin is told that
// nothing can fire, and a status (a client's Close asks one) is answered;
// nothing else is.
func drainAnswer(n int, line []byte) string {
	switch {
	case n == 1:
		return `{"ok":true,"id":1,"armed":false}` + "\n"
	case len(line) < 100 && bytes.Contains(line, []byte(`"op":"status"`)):
		return `{"ok":true,"status":{}}` + "\n"
	}
	return ""
}

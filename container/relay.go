package container

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
)

// An endpoint on the host's loopback (the agent's model, the user's)
// reaches a trial's container through a unix socket in a folder mounted
// into it, not through a network: the container's network is off. The host's end (ListenRelay) takes each connection on
// the socket to the endpoint on the host's loopback; the container's end
// (ListenInside, run by `swetouch images inside`) listens on the same
// loopback address in the container's own network namespace and takes
// each connection to the socket. The agent's URL is the host's,
// unchanged.

// Relay accepts connections on l and joins each to a new connection from
// dial, both ways, until l is closed.
type Relay struct {
	l    net.Listener
	dial func() (net.Conn, error)
	wg   sync.WaitGroup
}

// ListenRelay relays the unix socket sock (made here) to addr over TCP.
func ListenRelay(sock, addr string) (*Relay, error) {
	l, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	// the container's root is the host's root or one it maps: either way
	// the socket is the trial's alone, in a folder of its own
	if err := os.Chmod(sock, 0o666); err != nil {
		l.Close()
		return nil, err
	}
	return serve(l, func() (net.Conn, error) { return net.Dial("tcp", addr) }), nil
}

// ListenInside relays the TCP address addr (on the container's loopback)
// to the unix socket sock.
func ListenInside(addr, sock string) (*Relay, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return serve(l, func() (net.Conn, error) { return net.Dial("unix", sock) }), nil
}

func serve(l net.Listener, dial func() (net.Conn, error)) *Relay {
	r := &Relay{l: l, dial: dial}
	r.wg.Add(1)
	go r.accept()
	return r
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.l.Accept()
		if err != nil {
			return
		}
		go r.join(c)
	}
}

// join copies both ways; each side's end is passed on as a half close,
// so a request's end reaches the endpoint while its answer still comes.
func (r *Relay) join(c net.Conn) {
	defer c.Close()
	up, err := r.dial()
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(up, c)
		closeWrite(up)
		close(done)
	}()
	io.Copy(c, up)
	closeWrite(c)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// Close stops accepting; connections already joined run to their end.
func (r *Relay) Close() error {
	err := r.l.Close()
	r.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// LoopbackAddr is the host:port of an endpoint's URL on the loopback,
// which the relay serves at the same address in the container; an error
// for any other URL, which a container without a network cannot reach.
func LoopbackAddr(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a URL", raw)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() || port == "" {
		return "", fmt.Errorf("%s is not on this machine's loopback: a trial in a container reaches the host's endpoints there only (relayed over a socket; the container has no network)", raw)
	}
	return net.JoinHostPort(host, port), nil
}

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Network is what a sandboxed process reaches of the network. The zero
// value is a network namespace of its own holding only its loopback: no
// port of the host's, no abstract unix socket of another trial's, not the
// internet. That is the verifier's, and an agent's without a model.
type Network struct {
	// Host shares the host's network namespace (every loopback port and
	// abstract socket, the internet): an agent that reaches its own
	// provider, by an explicit choice that result.json records.
	Host bool
	// Relay are the TCP addresses (IP:port, on the host's loopback) the
	// process reaches inside at the same address: its model endpoint.
	// swetouch listens inside the namespace and dials each from the host,
	// so nothing else of the host answers.
	Relay []string
}

// Label is how result.json names a network: "host", "relayed" or "none".
func (n Network) Label() string {
	switch {
	case n.Host:
		return "host"
	case len(n.Relay) > 0:
		return "relayed"
	}
	return "none"
}

// netArgs are bwrap's arguments for n: a namespace of its own (bwrap
// brings its loopback up) unless the host's is asked for.
func (n Network) netArgs() []string {
	if n.Host {
		return nil
	}
	return []string{"--unshare-net"}
}

// relay serves one sandbox's relayed addresses: a listener made inside
// its network namespace for each, every connection accepted there joined
// to a connection dialled from the host's namespace.
type relay struct {
	addrs []string
	mu    sync.Mutex
	lns   []net.Listener
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

func newRelay(addrs []string) *relay { return &relay{addrs: addrs, conns: map[net.Conn]bool{}} }

// listen makes the listeners inside the network namespace of the process
// pidfd refers to (the sandbox's pid 1) and starts serving them. It takes
// a thread of its own into that namespace and back; a thread that cannot
// come back ends with its goroutine (never unlocked), so no other
// goroutine ever runs in the sandbox's namespace.
func (r *relay) listen(pidfd int) error {
	type made struct {
		lns []net.Listener
		err error
	}
	done := make(chan made, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- made{err: err}
			return
		}
		defer home.Close()
		if err := unix.Setns(pidfd, unix.CLONE_NEWNET); err != nil {
			done <- made{err: fmt.Errorf("joining the sandbox's network namespace: %w", err)}
			return
		}
		var m made
		for _, a := range r.addrs {
			ln, err := net.Listen("tcp", a)
			if err != nil {
				m.err = errors.Join(m.err, err)
				continue
			}
			m.lns = append(m.lns, ln)
		}
		if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err == nil {
			runtime.UnlockOSThread()
		}
		done <- m
	}()
	m := <-done
	r.mu.Lock()
	r.lns = m.lns
	r.mu.Unlock()
	for i, ln := range m.lns {
		r.wg.Add(1)
		go r.serve(ln, r.addrs[i])
	}
	if m.err != nil {
		return fmt.Errorf("sandbox: relaying %v: %w", r.addrs, m.err)
	}
	return nil
}

// relayDial bounds the dial of a relayed endpoint from the host.
const relayDial = 10 * time.Second

func (r *relay) serve(ln net.Listener, to string) {
	defer r.wg.Done()
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			out, err := net.DialTimeout("tcp", to, relayDial)
			if err != nil {
				in.Close()
				return
			}
			if !r.track(in, out) {
				return
			}
			join(in, out)
			r.untrack(in, out)
		}()
	}
}

// track remembers a joined pair so close can end it; false (both
// closed) once the relay is closed.
func (r *relay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		r.conns[c] = true
	}
	return true
}

func (r *relay) untrack(cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(r.conns, c)
	}
}

// join copies a and b into each other until both directions end, passing
// on each half-close.
func join(a, b net.Conn) {
	var wg sync.WaitGroup
	half := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		if c, ok := dst.(interface{ CloseWrite() error }); ok {
			c.CloseWrite()
		} else {
			dst.Close()
		}
	}
	wg.Add(2)
	go half(a, b)
	go half(b, a)
	wg.Wait()
}

// close ends the listeners and every joined connection, and waits for
// their goroutines.
func (r *relay) close() {
	r.mu.Lock()
	for _, ln := range r.lns {
		ln.Close()
	}
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
	r.wg.Wait()
}

// ModelNetwork is the network of an agent whose model is at rawURL: that
// endpoint relayed in, and nothing else ("": nothing at all). The
// endpoint must be on the host's loopback (a model server, swetouch's
// recorder in front of a provider): a name or an address beyond it would
// need the host's resolver and routes inside.
func ModelNetwork(rawURL string) (Network, error) {
	if rawURL == "" {
		return Network{}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return Network{}, fmt.Errorf("the model endpoint %q is not a URL", rawURL)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() || port == "" {
		return Network{}, fmt.Errorf("the model endpoint %s is not on this machine's loopback, which is all a sandbox's own network can relay", rawURL)
	}
	return Network{Relay: []string{net.JoinHostPort(ip.String(), port)}}, nil
}

// CanRelay says whether this process can relay an endpoint into a
// sandbox's network namespace: joining it takes CAP_SYS_ADMIN (root, or
// a container that keeps it); nil when it can.
func CanRelay() error {
	var data [2]unix.CapUserData
	if err := unix.Capget(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]); err != nil {
		return err
	}
	if data[0].Effective&(1<<unix.CAP_SYS_ADMIN) == 0 {
		return errors.New("relaying the model endpoint into the sandbox's own network needs CAP_SYS_ADMIN (swetouch run as root, or a container that keeps the capability)")
	}
	return nil
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/swetouch/swetouch/internal/rawfd"
	"github.com/swetouch/swetouch/proxy"
	mcpproxy "github.com/swetouch/swetouch/proxy/mcp"
	"github.com/swetouch/swetouch/session"
)

// The HTTP relay is measured as an agent's configuration runs it: the
// MCP server a process of its own, and `swetouch mcp --upstream` another
// in front of it. Next to it, what any relay process costs here: a plain
// TCP proxy (io.Copy both ways, read and written quietly as the relay
// reads and writes), the floor the relay's budget sits on.
// Both helpers are this program run again with a helper's name.
const (
	helperServe = "-serve-mcp" // serve a one-tool MCP server over HTTP
	helperProxy = "-proxy-tcp" // ADDR: relay TCP to ADDR, bytes only
	// SOCKET ADDR: the same, writing one short line to SOCKET before each
	// read of the client's goes on and after each read of the server's
	// is out, as the relay tells its hub of a call it must begin before
	// it runs (each message is one read here; see proxyTold)
	helperProxyTold = "-proxy-tcp-told"
	// ADDR: the same with threads waiting in the kernel (read, accept)
	// rather than in Go's poller
	helperProxyThreads = "-proxy-tcp-threads"
	// COMMAND ARGS...: start the command and copy this process's stdin
	// to its stdin and its stdout to this one's, bytes only
	helperPipe = "-pipe-relay"
	// SOCKET COMMAND ARGS...: the same, writing one short line to SOCKET
	// after each server line is out, as the relay tells its hub of a call
	// that changes no file
	helperPipeTold = "-pipe-relay-told"
	// a process that accepts on a unix socket and reads what it is sent,
	// doing nothing with it: the least a hub can be. It prints the socket.
	helperListener = "-null-listener"
	// the same answering each line it reads with one line at once
	helperEcho = "-echo-listener"
	// the least a hub a relay reports to can be: it answers the relay's
	// first begin as a hub that nothing can fire on does (so the relay
	// tells it of each read in one line after the result, as it tells a
	// hub) and reads the rest, doing nothing with them
	helperDrain = "-drain-listener"
	// URL: an HTTP reverse proxy to URL (net/http/httputil, nothing
	// else): the least a relay that reads HTTP costs here
	helperReverse = "-reverse-proxy"
)

// helper runs this program as one of its helper processes, which print
// their URL and serve until killed; false when args name none.
func helper(args []string) bool {
	switch args[0] {
	case helperPipe, helperPipeTold, helperProxy, helperProxyTold, helperProxyFramed, helperReverse:
		// the relay runs with one P when it owns no session (swetouch
		// mcp): its floors too, so that they pay no cost it has shed
		runtime.GOMAXPROCS(1)
	}
	var h http.Handler
	switch args[0] {
	case helperServe:
		h = server.NewStreamableHTTPServer(pingServer())
	case helperProxy:
	case helperProxyThreads:
		proxyThreads(args[1])
		return true
	case helperProxyTold:
		proxyTold(args[1], args[2])
		return true
	case helperRawServe:
		rawServe()
		return true
	case helperProxyFramed:
		proxyFramed(args[1], args[2])
		return true
	case helperPipeTold:
		pipeTold(args[1], args[2:])
		return true
	case helperPeer:
		peerProxy(args[1:])
		return true
	case helperPeerHTTP:
		h = peerHTTPHandler(args[1])
	case helperListener, helperEcho, helperDrain:
		nullListener(args[0])
		return true
	case helperReverse:
		u, err := url.Parse(args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		rp := httputil.NewSingleHostReverseProxy(u)
		rp.FlushInterval = -1 // event streams go on as they come
		h = rp
	case helperPipe:
		cmd := exec.Command(args[1], args[2:]...)
		cmd.Stderr = os.Stderr
		in, out, _, err := proxy.StartChild(cmd)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// copied as the relay copies (internal/quietio), so that the
		// floor pays no cost the relay has shed
		go func() { io.Copy(rawfd.Writer(in), rawfd.Reader(proxy.Pollable(os.Stdin))); in.Close() }()
		io.Copy(rawfd.Writer(os.Stdout), rawfd.Reader(out))
		cmd.Wait()
		return true
	default:
		return false
	}
	l := listenURL()
	if h != nil {
		http.Serve(l, h)
		return true
	}
	proxyTCP(l, args[1], bytesOnly, bytesOnly)
	return true
}

// pingCall is the call of pingServer's one tool.
func pingCall() mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = "ping_tool"
	return req
}

func pingServer() *server.MCPServer {
	srv := server.NewMCPServer("bench", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("ping_tool"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	return srv
}

// httpClients opens an MCP session over streamable HTTP to each base's
// /mcp; what it opened is returned with an error too, to be closed.
func httpClients(bases ...string) ([]*client.Client, error) {
	var clients []*client.Client
	for _, base := range bases {
		c, err := client.NewStreamableHttpClient(base + "/mcp")
		if err != nil {
			return clients, err
		}
		clients = append(clients, c)
		if err := c.Start(context.Background()); err != nil {
			return clients, err
		}
		if err := initialize(c, "2025-06-18"); err != nil {
			return clients, err
		}
	}
	return clients, nil
}

// closeAll closes clients.
func closeAll(clients []*client.Client) {
	for _, c := range clients {
		c.Close()
	}
}

// urlProcs are processes that each print their URL first, their pids
// by that URL.
type urlProcs struct {
	procs []*exec.Cmd
	pids  map[string]int
}

// start runs a process that prints its URL first, and returns the URL.
func (p *urlProcs) start(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SWETOUCH_SOCKET=")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	p.procs = append(p.procs, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	p.pids[strings.TrimSpace(line)] = cmd.Process.Pid
	return strings.TrimSpace(line), nil
}

// stop kills and waits for the processes started.
func (p *urlProcs) stop() {
	for _, c := range p.procs {
		c.Process.Kill()
		c.Wait()
	}
}

func httpPart(res *results, n int, bin string, hub *helperProc, ws string) error {
	sock, hubPid := hub.sock, hub.pid
	ps := urlProcs{pids: map[string]int{}}
	defer ps.stop()
	start, pids := ps.start, ps.pids
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// the least a hub can be, for the telling TCP proxies
	listener, err := listenerProcess(helperListener)
	if err != nil {
		return err
	}
	defer listener.stop()
	up, floor, told, alone, relayed, err := startRelays(start, self, helperServe, filepath.Join(bin, "swetouch"), ws, sock, listener.sock)
	if err != nil {
		return err
	}
	u, _ := url.Parse(up)
	floorThreads, err := start(self, helperProxyThreads, u.Host)
	if err != nil {
		return err
	}
	reverse, err := start(self, helperReverse, up)
	if err != nil {
		return err
	}
	framed, err := start(self, helperProxyFramed, listener.sock, u.Host)
	if err != nil {
		return err
	}
	// and the relay in this process, as BenchmarkHTTPCall has it, with a
	// live hub of its own: sharing the measured relay's would charge that
	// hub with two relays' calls in every round
	own, err := namedHub(ws, "live", "", "in-process")
	if err != nil {
		return err
	}
	defer own.stop()
	inHub, err := session.Dial(own.sock)
	if err != nil {
		return err
	}
	defer inHub.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer l.Close()
	go mcpproxy.NewHTTPRelay(u, mcpproxy.NewRelay(inHub, &mcpproxy.Classifier{Root: ws}, io.Discard)).Serve(l)
	inProcess := "http://" + l.Addr().String()

	bases := []string{up, floor, alone, relayed, inProcess, floorThreads, reverse, told, framed}
	clients, err := httpClients(bases...)
	defer closeAll(clients)
	if err != nil {
		return err
	}
	sessions := map[string]string{} // each client's, by the URL it calls
	for i, c := range clients {
		sessions[bases[i]] = c.GetSessionId()
	}
	req := pingCall()
	var m cpuMeter
	m.start(pids[floor], pids[alone], pids[relayed], hubPid, pids[told], listener.pid)
	t, err := alternate(n, req, clients...)
	if err != nil {
		return err
	}
	cpu, sw := m.perCall(n), m.switchesPerCall(n)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	// the floor is the quicker of the two plain proxies
	tcp := min(us(t[1]), us(t[5]))
	res.say("MCP tools/call (HTTP)   median %.0f µs direct; through `swetouch mcp --upstream` added %.0f µs, paired over %d calls (%.2f× the TCP proxy's)", us(t[0]), us(t[3]), n, us(t[3])/tcp)
	res.say("  floor: a plain TCP proxy process added %.0f µs waiting in Go's poller, %.0f µs with threads waiting in the kernel (the floor is the quicker); the relay with no session %.0f µs", us(t[1]), us(t[5]), us(t[2]))
	res.say("  the relay inside the client's process, with the hub (BenchmarkHTTPCall's setting): added %.0f µs", us(t[4]))
	res.say("  floor of any relay that reads HTTP: net/http/httputil's reverse proxy in a process added %.0f µs (%.2f× the TCP proxy's); the relay with the hub adds %.2f× that", us(t[6]), us(t[6])/tcp, us(t[3])/us(t[6]))
	res.say("  floor of any relay that tells a hub: the TCP proxy writing a line to a process that only reads them before each request goes on and once each response is out (as the relay tells its hub of a call of a tool it does not know to be a read, as ping_tool is), added %.0f µs (%.2f× the TCP proxy's); the relay with the hub adds %.2f× that", us(t[7]), us(t[7])/tcp, us(t[3])/us(t[7]))
	res.say("  CPU per call (context switches given up + taken): the TCP proxy %.0f µs (%s), the relay with no session %.0f (%s), with the hub %.0f (%s; the hub %.0f, %s); the telling TCP proxy %.0f (%s; its listener %.0f, %s)",
		cpu[0], switches(sw[0]), cpu[1], switches(sw[1]), cpu[2], switches(sw[2]), cpu[3], switches(sw[3]), cpu[4], switches(sw[4]), cpu[5], switches(sw[5]))
	// set against a proxy that tells no hub: held at the ratio of the
	// least a proxy that tells one costs
	res.target(figure{Target: "MCP HTTP added / TCP proxy's", Value: us(t[3]) / tcp, Unit: "×", Floor: us(t[7]) / tcp, FloorIs: "TCP proxy telling a listener", Budget: 1.5, Runs: n}.
		rebase(1, us(t[7])/tcp, fmt.Sprintf("the TCP proxy telling a listener, %.2f× the TCP proxy", us(t[7])/tcp)))
	res.target(figure{Target: "MCP HTTP added / TCP proxy telling a listener", Value: us(t[3]) / us(t[7]), Unit: "×", Floor: 1, FloorIs: "TCP proxy telling a listener", Budget: 1.5, Runs: n})
	res.say("  floor of any relay that reads HTTP and tells a hub: a TCP proxy reading each message whole by its framing and telling the listener as the telling proxy does added %.0f µs (%.2f× the telling TCP proxy's); the relay with the hub adds %.2f× that", us(t[8]), us(t[8])/us(t[7]), us(t[3])/us(t[8]))
	res.target(figure{Target: "MCP HTTP added / HTTP-framing telling proxy", Value: us(t[3]) / us(t[8]), Unit: "×", Floor: us(t[8]) / us(t[7]), FloorIs: "a TCP proxy reading HTTP framing, telling a listener", Budget: 1.5, Runs: n})
	res.target(figure{Target: "MCP HTTP added / HTTP reverse proxy's", Value: us(t[3]) / us(t[6]), Unit: "×", Floor: 1, FloorIs: "HTTP reverse proxy", Budget: 1.5, Runs: n})
	if err := libraryBytesPart(res, n, sessions, pids, hubPid, listener.pid, up, floor, alone, relayed, told); err != nil {
		return err
	}
	return rawHTTPPart(res, n, self, filepath.Join(bin, "swetouch"), hub, listener, ws, start, pids)
}

// libraryBytesPart times mcp-go's tools/call, byte for byte, sent by the
// hand-written client through the same processes: mcp-go's server and
// request without mcp-go's client. Against the library's client, what
// falls away is what the client's own work between calls costs the
// processes in the path (on this project's machines the relay, whose
// code and heap are larger than the TCP proxy's, paid more of it), not
// anything the relay reads.
func libraryBytesPart(res *results, n int, sessions map[string]string, pids map[string]int, hubPid, listenerPid int, up, floor, alone, relayed, told string) error {
	req := func(base string) []byte { return libraryRequest(base, sessions[base]) }
	t, cpu, sw, err := rawPaths(n, req, pids, hubPid, listenerPid, up, floor, alone, relayed, told)
	if err != nil {
		return err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	res.say("  mcp-go's server and its client's request, byte for byte, from a client that does nothing else: direct %.0f µs; the TCP proxy added %.0f µs, the relay with no session %.0f µs (%.2f×), with the hub %.0f µs (%.2f×); the telling TCP proxy %.0f µs (the relay with the hub %.2f× that)",
		us(t[0]), us(t[1]), us(t[2]), us(t[2])/us(t[1]), us(t[3]), us(t[3])/us(t[1]), us(t[4]), us(t[3])/us(t[4]))
	res.say("    CPU per call (context switches given up + taken): the TCP proxy %.0f µs (%s), the relay with no session %.0f (%s), with the hub %.0f (%s; the hub %.0f, %s); the telling TCP proxy %.0f (%s)",
		cpu[0], switches(sw[0]), cpu[1], switches(sw[1]), cpu[2], switches(sw[2]), cpu[3], switches(sw[3]), cpu[4], switches(sw[4]))
	return nil
}

// startRelays starts an upstream server (this program as helper serve),
// the TCP proxy to it, the same telling the listener at listener, and the
// relay to it with no session and with the hub at sock, and returns their
// URLs.
func startRelays(start func(string, ...string) (string, error), self, serve, swetouch, ws, sock, listener string) (up, floor, told, alone, relayed string, err error) {
	if up, err = start(self, serve); err != nil {
		return
	}
	u, _ := url.Parse(up)
	if floor, err = start(self, helperProxy, u.Host); err != nil {
		return
	}
	if told, err = start(self, helperProxyTold, listener, u.Host); err != nil {
		return
	}
	if alone, err = start(swetouch, "mcp", "--root", ws, "--upstream", up); err != nil {
		return
	}
	relayed, err = start(swetouch, "mcp", "--root", ws, "--upstream", up, "--session", sock)
	return
}

// rawHTTPPart is the relay against the TCP proxy with a hand-written
// HTTP/1.1 server and client (rawhttp.go): the relay's own cost.
func rawHTTPPart(res *results, n int, self, swetouch string, hub, listener *helperProc, ws string, start func(string, ...string) (string, error), pids map[string]int) error {
	up, floor, told, alone, relayed, err := startRelays(start, self, helperRawServe, swetouch, ws, hub.sock, listener.sock)
	if err != nil {
		return err
	}
	t, cpu, sw, err := rawPaths(n, func(string) []byte { return rawRequest() }, pids, hub.pid, listener.pid, up, floor, alone, relayed, told)
	if err != nil {
		return err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	res.say("  with a server and a client that speak HTTP/1.1 by hand (no MCP library's load): direct %.0f µs; the TCP proxy added %.0f µs, the relay with no session %.0f µs (%.2f×), with the hub %.0f µs (%.2f×)",
		us(t[0]), us(t[1]), us(t[2]), us(t[2])/us(t[1]), us(t[3]), us(t[3])/us(t[1]))
	res.say("    the TCP proxy telling a listener added %.0f µs (%.2f× the TCP proxy's); the relay with the hub adds %.2f× that", us(t[4]), us(t[4])/us(t[1]), us(t[3])/us(t[4]))
	res.say("    CPU per call (context switches given up + taken): the TCP proxy %.0f µs (%s), the relay with no session %.0f (%s), with the hub %.0f (%s; the hub %.0f, %s); the telling TCP proxy %.0f (%s; its listener %.0f, %s)",
		cpu[0], switches(sw[0]), cpu[1], switches(sw[1]), cpu[2], switches(sw[2]), cpu[3], switches(sw[3]), cpu[4], switches(sw[4]), cpu[5], switches(sw[5]))
	res.target(figure{Target: "HTTP relay with hub / TCP proxy, raw HTTP ends", Value: us(t[3]) / us(t[1]), Unit: "×", Floor: us(t[4]) / us(t[1]), FloorIs: "TCP proxy telling a listener", Budget: 1.5, Runs: n}.
		rebase(1, us(t[4])/us(t[1]), fmt.Sprintf("the TCP proxy telling a listener, %.2f× the TCP proxy", us(t[4])/us(t[1]))))
	res.target(figure{Target: "the same / telling TCP proxy, raw HTTP ends", Value: us(t[3]) / us(t[4]), Unit: "×", Floor: 1, FloorIs: "TCP proxy telling a listener", Budget: 1.5, Runs: n})
	return nil
}

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// answer serves ln: each connection reads a line and gets back word and
// that line.
func answer(t *testing.T, ln net.Listener, word string) {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				fmt.Fprintf(c, "%s %s", word, line)
			}()
		}
	}()
}

// TestNetworkOfItsOwn: a sandbox reaches the addresses relayed to it and
// nothing else of the host: not another loopback port, not an abstract
// unix socket; with no relay, nothing; with the host's network, all.
func TestNetworkOfItsOwn(t *testing.T) {
	r := need(t)
	model, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	answer(t, model, "model")
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	answer(t, other, "other")
	abstract := fmt.Sprintf("@swetouch-netns-test-%d", os.Getpid())
	ua, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	answer(t, ua, "abstract")
	ws := t.TempDir()
	// python3 for the abstract socket; bash's /dev/tcp for the ports
	probe := fmt.Sprintf(`try() { if exec 7<>/dev/tcp/127.0.0.1/$1; then echo hi >&7; read -r got <&7; echo "$1: $got"; exec 7<&-; else echo "$1: unreachable"; fi; }
try %d; try %d
python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0%s"); s.sendall(b"hi\n"); print("abstract:", s.recv(100).decode().strip())
except OSError as e:
    print("abstract: unreachable", e)
'`, port(model), port(other), abstract[1:])
	tests := []struct {
		name string
		net  Network
		want []string
	}{
		{"relayed", Network{Relay: []string{model.Addr().String()}},
			[]string{fmt.Sprintf("%d: model hi", port(model)), fmt.Sprintf("%d: unreachable", port(other)), "abstract: unreachable"}},
		{"none", Network{},
			[]string{fmt.Sprintf("%d: unreachable", port(model)), fmt.Sprintf("%d: unreachable", port(other)), "abstract: unreachable"}},
		{"host", Network{Host: true},
			[]string{fmt.Sprintf("%d: model hi", port(model)), fmt.Sprintf("%d: other hi", port(other)), "abstract: abstract hi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, r, Spec{Writable: []string{ws}, Dir: ws, Home: "/root", Network: tc.net}, probe)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("want %q in:\n%s", w, out)
				}
			}
		})
	}
}

func port(ln net.Listener) int { return ln.Addr().(*net.TCPAddr).Port }

// TestRelayFailureIsSetup: a relay that cannot be made (its port is taken
// inside: two relays of one address) never starts the command, and Wait
// says the sandbox could not be made.
func TestRelayFailureIsSetup(t *testing.T) {
	r := need(t)
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	_, err := run(t, r, Spec{Writable: []string{ws}, Dir: ws, Network: Network{Relay: []string{"127.0.0.1:9", "127.0.0.1:9"}}}, "touch "+marker)
	var se *SetupError
	if !errors.As(err, &se) || se.Err == nil {
		t.Fatalf("err = %v, want a SetupError naming the relay", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the command ran without its relays")
	}
}

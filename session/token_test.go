package session_test

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/wire"
)

// TestTokenFirst: where the hub asks for its session's token, a client
// admitted by what it runs is still refused every line until it opens
// with the token: none, or a wrong one, and it is told why and hung up on;
// with it, it is served. Where the hub asks for none, a hello is passed
// over unanswered.
func TestTokenFirst(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	token, err := session.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := session.NewToken()
	sock, _ := serveUnix(t, session.WithClients(self), session.WithToken(token))
	ask := func(sock string, first []byte) string {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(append(first, `{"op":"status"}`+"\n"...))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	for name, first := range map[string][]byte{
		"no token":    nil,
		"wrong token": wire.Hello(other),
		"a begin":     []byte(`{"op":"begin","begin":{"command":"python3 -m pytest","cwd":"/"}}` + "\n"),
	} {
		if got := ask(sock, first); !strings.Contains(got, "token") || strings.Contains(got, `"ok":true`) {
			t.Errorf("%s: answered %q, want a refusal naming the token", name, got)
		}
	}
	if got := ask(sock, wire.Hello(token)); !strings.Contains(got, `"ok":true`) {
		t.Errorf("with the token: answered %q", got)
	}
	open, _ := serveUnix(t, session.WithClients(self))
	if got := ask(open, wire.Hello(token)); !strings.Contains(got, `"ok":true`) || !strings.Contains(got, "status") {
		t.Errorf("a hub asking no token, after a hello: answered %q, want the status's answer", got)
	}
}

// TestTokenedCopy: the copy carries the token and its socket in every
// slot, no unpatched slot is left, and it is execute-only.
func TestTokenedCopy(t *testing.T) {
	self, err := os.Executable() // links session/wire: one slot at least
	if err != nil {
		t.Fatal(err)
	}
	token, _ := session.NewToken()
	dst := filepath.Join(t.TempDir(), "shim")
	if err := session.TokenedCopy(self, dst, token, "/run/x/hub.sock"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dst)
	if err != nil || info.Mode().Perm() != 0o111 {
		t.Fatalf("mode %v (%v), want 0111", info.Mode().Perm(), err)
	}
	os.Chmod(dst, 0o400) // root reads anything; the test reads it back
	b, _ := os.ReadFile(dst)
	if bytes.Contains(b, []byte(wire.TokenSlot())) || !bytes.Contains(b, []byte(wire.TokenMarker+token+"/run/x/hub.sock\x00")) {
		t.Error("the copy does not carry the token and socket in place of every slot")
	}
	if err := session.TokenedCopy("/bin/true", filepath.Join(t.TempDir(), "x"), token, "/s"); err == nil {
		t.Error("a copy of an executable with no slot: no error")
	}
}

// BenchmarkTokenedCopy: what a trial's copies cost swetouch at its start
// (this test binary stands in for the shim and swetouch).
func BenchmarkTokenedCopy(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(self)
	b.SetBytes(info.Size())
	token, _ := session.NewToken()
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		dst := filepath.Join(dir, "copy"+strconv.Itoa(i))
		if err := session.TokenedCopy(self, dst, token, "/run/x/hub.sock"); err != nil {
			b.Fatal(err)
		}
		os.Remove(dst)
	}
}

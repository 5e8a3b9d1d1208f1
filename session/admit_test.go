package session_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
)

// TestRefusedBeforeRead: a client the hub does not admit is told why and
// hung up on before anything of it is read: a status asks nothing, and a
// megabyte sent without a newline finds the connection gone rather than a
// hub buffering it. Without admission at accept, the status was answered
// and the megabyte held.
func TestRefusedBeforeRead(t *testing.T) {
	sock, _ := serveUnix(t, session.WithClients("/nowhere/swetouch-shim"))
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, `{"op":"status"}`+"\n")
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, `"error":"refused: only swetouch's shim`) || strings.Contains(line, "status") {
		t.Fatalf("first answer %q (%v): want the refusal alone", line, err)
	}
	if more, err := r.ReadString('\n'); err == nil {
		t.Fatalf("a refused client was answered again: %q", more)
	}
	// the hub has closed its end: a stream without a newline fails
	// within the socket's buffer, not after a megabyte
	c2, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	io.ReadAll(c2) // the refusal, then the hang-up
	n, err := c2.Write(bytes.Repeat([]byte("x"), 1<<20))
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("wrote %d bytes to a refused connection: %v", n, err)
	}
}

// TestLongLinesShareABudget: the long lines of all connections together
// draw on one budget. A connection streaming a long line holds most of
// it; another's long line meanwhile is dropped with the reason, and its
// connection goes on; once the first line ends, a long line fits again.
// Short lines never draw on it. Without the budget both long lines were
// held in full.
func TestLongLinesShareABudget(t *testing.T) {
	const limit = 1 << 20
	sock, _ := serveUnix(t, session.WithLineLimit(limit), session.WithLineBudget(limit+1+256<<10))
	long := func(n int) string { return `{"op":"status","x":"` + strings.Repeat("y", n) + `"}` }
	a, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ra, rb := bufio.NewReader(a), bufio.NewReader(b)
	ask := func(c net.Conn, r *bufio.Reader, line string) string {
		t.Helper()
		if _, err := io.WriteString(c, line+"\n"); err != nil {
			t.Fatal(err)
		}
		answer, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return answer
	}
	// a's line, its newline held back: once the write returns, the hub
	// has read all but a socket buffer of it (over 512 KiB), so it holds
	// a megabyte of the budget
	half := long(800 << 10)
	if _, err := io.WriteString(a, half); err != nil {
		t.Fatal(err)
	}
	if got := ask(b, rb, `{"op":"status"}`); !strings.Contains(got, `"ok":true`) {
		t.Errorf("a short line beside a long one: %s", got)
	}
	if got := ask(b, rb, long(800<<10)); !strings.Contains(got, `"error":"line 2: the hub holds as much of long lines as it may now`) {
		t.Errorf("a second long line: %s, want it dropped", strings.TrimSpace(got))
	}
	if got := ask(a, ra, ""); !strings.Contains(got, `"ok":true`) {
		t.Errorf("the first long line, ended: %s", got)
	}
	if got := ask(b, rb, long(800<<10)); !strings.Contains(got, `"ok":true`) {
		t.Errorf("a long line once the budget is back: %s", strings.TrimSpace(got))
	}
}

// TestStatusTellsNoCondition: the socket's status is a barrier and
// counts, never the interventions (which would tell the agent its
// condition); the hub itself still knows them.
func TestStatusTellsNoCondition(t *testing.T) {
	l := start(t, policy.CounterEdit)
	l.sh(t, "nl -ba pricing.py | sed -n 4,6p") // fires the Counter-Edit
	if st := l.hub.Status(); len(st.Interventions) != 1 {
		t.Fatalf("interventions %+v, want the one applied", st.Interventions)
	}
	c, err := net.Dial("unix", l.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, `{"op":"status"}`+"\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"ok":true`) || strings.Contains(line, "applied") || strings.Contains(line, "counter") || strings.Contains(line, `"steps":0`) {
		t.Errorf("status over the socket: %s", line)
	}
}

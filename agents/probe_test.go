package agents

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestProbeModel (issue 50): an endpoint that refuses the connection
// (a listener on 127.0.0.1:0, closed) and one that accepts and never
// answers are each told at once, within the injected timeout; any HTTP
// answer, a 404 too, is an endpoint.
func TestProbeModel(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	start := time.Now()
	if err := ProbeModel(ctx, closed, time.Minute); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a closed port: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a closed port took %s", d)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	held := make(chan net.Conn, 1)
	go func() {
		// accept, read nothing, answer nothing
		if c, err := silent.Accept(); err == nil {
			held <- c
		}
	}()
	start = time.Now()
	err = ProbeModel(ctx, "http://"+silent.Addr().String(), 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Errorf("a silent endpoint: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a silent endpoint took %s", d)
	}
	(<-held).Close() // the probe did connect: it waited on an answer

	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	if err := ProbeModel(ctx, srv.URL, time.Minute); err != nil {
		t.Errorf("an endpoint that answers 404: %v", err)
	}
}

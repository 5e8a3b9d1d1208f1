package rawhttp

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestLength: a head's Content-Length, in any case and spacing, past a
// header line longer than the reader's buffer (passed over unread); none
// is 0; a bad one and a head cut short are errors.
func TestLength(t *testing.T) {
	for _, c := range []struct {
		head string
		want int64
		bad  bool
	}{
		{"POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n", 12, false},
		{"HTTP/1.1 200 OK\r\ncontent-LENGTH :7\r\nX: y\r\n\r\n", 7, false},
		{"HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("p", 100) + "\r\nContent-Length: 3\r\n\r\n", 3, false},
		{"HTTP/1.1 204 No Content\n\n", 0, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", 0, true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n", 0, true},
	} {
		got, err := Length(bufio.NewReaderSize(strings.NewReader(c.head), 64))
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("Length(%q) = %d, %v; want %d (error %v)", c.head, got, err, c.want, c.bad)
		}
	}
}

// TestServe: every request on a connection is answered with the one
// response, the request's body read past whatever it holds.
func TestServe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	answer := Response(`{"ok":true}`)
	go Serve(l, answer)
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for _, body := range []string{`{"a":1}`, `HTTP/1.1 200 OK`} {
		if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body); err != nil {
			t.Fatal(err)
		}
		n, err := Length(br)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, n)
		if _, err := io.ReadFull(br, got); err != nil {
			t.Fatal(err)
		}
		if string(got) != `{"ok":true}` {
			t.Fatalf("answered %q", got)
		}
	}
}

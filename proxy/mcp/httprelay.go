package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/swetouch/swetouch/internal/rawfd"
)

// HTTPRelay is the relay in front of a streamable HTTP MCP server, at
// the byte level (the GET stream, session ids, MCP-Protocol-Version and
// Last-Event-ID pass as they came): each client connection gets a connection of its own to
// the server, and requests and responses pass as the bytes they came as
// (only Host names the server), parsed just enough to know where each
// message ends, to see tools/call requests, and to add the user's message
// to a tools/call result. A second HTTP stack in the path (a reverse
// proxy) cost +190 µs a call on this project's machines, in one process
// with client and server; a byte relay costs about a quarter of that
// there (as processes of their own, see docs/runtime.md, any relay pays
// first for waking a second process). HTTP/1.1 only, as MCP clients
// speak to local servers.
type HTTPRelay struct {
	upstream string // host:port
	host     string // the Host the server is asked for
	relay    *Relay
	// AllowOrigin accepts a browser Origin besides localhost ones; the
	// relay, like any local MCP server, refuses others (DNS rebinding).
	AllowOrigin func(string) bool
	reference   bool // net/http in place of the framing (httpreference.go)
}

// NewHTTPRelay relays to upstream (an http:// URL) through r.
func NewHTTPRelay(upstream *url.URL, r *Relay) *HTTPRelay {
	addr := upstream.Host
	if upstream.Port() == "" {
		addr = net.JoinHostPort(upstream.Hostname(), "80")
	}
	return &HTTPRelay{upstream: addr, host: upstream.Host, relay: r, reference: referenceOn()}
}

// Serve relays every connection l accepts until l is closed.
func (s *HTTPRelay) Serve(l net.Listener) error {
	if s.reference {
		return s.serveReference(l)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go s.conn(c)
	}
}

// exchange is a request on its way, waiting for its response (HTTP/1.1
// answers in order).
type exchange struct {
	head  bool   // a HEAD request: its response has no body
	scope string // the MCP session (Mcp-Session-Id)
}

func (s *HTTPRelay) conn(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", s.upstream)
	if err != nil {
		fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(err.Error()), err)
		return
	}
	defer up.Close()
	pending := make(chan exchange, 64)
	answered := make(chan struct{})
	var refusing atomic.Bool
	go func() {
		defer close(answered)
		s.responses(bufio.NewReaderSize(rawfd.Reader(up), 64<<10), c, pending)
		if !refusing.Load() {
			c.Close() // the server hung up: so does the relay, as the server would have
		}
	}()
	refusal := s.requests(bufio.NewReaderSize(rawfd.Reader(c), 64<<10), up, pending, answered)
	close(pending)
	if refusal != nil {
		// the relay's own answer ends the connection: no more of the
		// server's goes to this client
		refusing.Store(true)
		up.Close()
		<-answered
		c.Write(refusal)
		return
	}
	if tc, ok := up.(*net.TCPConn); ok {
		tc.CloseWrite() // the server answers what it has, then closes
	}
	<-answered
}

// requests passes the client's requests to the server, one message at a
// time, until the client hangs up (or the server, which ends answered).
// A request the relay refuses ends it with the answer to send.
func (s *HTTPRelay) requests(br *bufio.Reader, up net.Conn, pending chan<- exchange, answered <-chan struct{}) (refusal []byte) {
	next := func(ex exchange) bool {
		select {
		case pending <- ex: // room, as nearly always: no two-way select
			return true
		default:
		}
		select {
		case pending <- ex:
			return true
		case <-answered:
			return false
		}
	}
	w := bufio.NewWriterSize(rawfd.Writer(up), 64<<10)
	head := new(head) // each request's, in turn
	var sent Later
	for {
		if head.read(br) != nil {
			return
		}
		method, _, _ := strings.Cut(head.first, " ")
		if o := head.get("origin"); o != "" && !localOrigin(o) && (s.AllowOrigin == nil || !s.AllowOrigin(o)) {
			msg := "swetouch mcp: origin not allowed\n"
			return fmt.Appendf(nil, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
		}
		head.set("host", s.host)
		ex := exchange{head: method == "HEAD", scope: head.get("mcp-session-id")}
		head.writeTo(w)
		// its answer is next in line now: a 100 Continue may come before
		// the body (the server cannot answer the request itself before
		// the body's last bytes, which go after the relay has seen it)
		if !next(ex) {
			return
		}
		if head.has("expect", "100-continue") && w.Flush() != nil {
			return // the client waits for the server's 100 before its body
		}
		// the body is read whole and seen by the relay before any of it
		// goes on: the server must not answer a tools/call the relay has
		// not registered
		raw, body, err := readBody(br, head)
		if err != nil {
			return
		}
		if method == "POST" && len(body) > 0 {
			s.relay.FromClientLater(ex.scope, bytes.TrimSpace(body), &sent)
		}
		w.Write(raw)
		err = w.Flush()
		sent.Send() // while the server works on it
		if err != nil {
			return
		}
		if head.has("connection", "close") {
			return
		}
	}
}

// responses passes the server's responses to the client in order, each
// tools/call result through the relay. It waits in a read of the server's
// connection, as a plain proxy does, and takes a response's exchange
// once its head has come (the request's exchange was queued before the
// request went): waiting on the queue instead cost a second wake-up per
// call.
func (s *HTTPRelay) responses(br *bufio.Reader, c net.Conn, pending <-chan exchange) {
	var later Later
	w := reportingWriter{bufio.NewWriterSize(rawfd.Writer(c), 64<<10), &later}
	defer later.Send()
	fromServer := func(scope string) func([]byte) []byte {
		return func(line []byte) []byte { return s.relay.FromServerLater(scope, line, &later) }
	}
	// a JSON body is read into memory of its own and kept as it is until
	// the flush after it sends later: it may go before it is read
	fromServerFirst := func(scope string, body []byte) []byte { return s.relay.FromServerFirst(scope, body, &later) }
	head := new(head) // each response's, in turn
	for {
		err := head.read(br)
		if err != nil {
			return
		}
		ex, ok := <-pending
		if !ok {
			return // an answer nobody asked for: the connection is done
		}
		for err == nil && strings.HasPrefix(head.status(), "1") && head.status() != "101" {
			head.writeTo(w) // 100 Continue and the like: the answer follows
			w.Flush()
			err = head.read(br)
		}
		if err != nil {
			return
		}
		st := head.status()
		ct := head.get("content-type")
		switch {
		case ex.head || st == "204" || st == "304":
			head.writeTo(w)
		case hasPrefixFold(ct, "application/json"):
			// held whole (however framed) and sent with its length: a
			// result may gain the user's message
			closing := head.closeDelimited()
			body, err := readWhole(br, head)
			if err != nil {
				return
			}
			if out := fromServerFirst(ex.scope, bytes.TrimSpace(body)); !bytes.Equal(out, bytes.TrimSpace(body)) {
				body = out
			}
			if head.has("transfer-encoding", "chunked") || closing || head.get("content-length") != strconv.Itoa(len(body)) {
				head.del("transfer-encoding")
				head.set("content-length", strconv.Itoa(len(body)))
			}
			head.writeTo(w)
			w.Write(body)
			if closing {
				w.Flush()
				return
			}
		default:
			head.writeTo(w)
			var events func([]byte) []byte
			if hasPrefixFold(ct, "text/event-stream") {
				events = fromServer(ex.scope)
			}
			if err := copyBody(w, br, head, events); err != nil {
				w.Flush()
				return
			}
		}
		if w.Flush() != nil || head.has("connection", "close") || head.closeDelimited() {
			return
		}
	}
}

// hasPrefixFold is strings.HasPrefix with the prefix matched case-blind
// (a media type's name is).
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// reportingWriter is the writer of the client's responses: once a
// flush has sent the results it carried, the ends of their calls go to
// the hub, on the same goroutine.
type reportingWriter struct {
	*bufio.Writer
	later *Later
}

func (w reportingWriter) Flush() error {
	err := w.Writer.Flush()
	w.later.Send()
	return err
}

// maxBody bounds a message body the relay holds whole (a JSON request or
// result): 256 MiB.
const maxBody = 256 << 20

// readBody reads a message's body whole, chunked or by length: the bytes
// as they came (chunks, trailers and all) and the body they carry.
func readBody(br *bufio.Reader, h *head) (raw, body []byte, err error) {
	switch {
	case h.faultyFraming():
		return nil, nil, errFaultyFraming
	case h.has("transfer-encoding", "chunked"):
		var rawBuf bytes.Buffer
		for {
			sizeLine, chunk, last, err := nextChunk(br, maxBody-len(body))
			if err != nil {
				return nil, nil, err
			}
			rawBuf.WriteString(sizeLine)
			if last {
				t, err := trailers(br)
				rawBuf.WriteString(t)
				return rawBuf.Bytes(), body, err
			}
			rawBuf.Write(chunk)
			body = append(body, chunk[:len(chunk)-2]...)
		}
	case h.get("content-length") != "":
		n, err := h.length(maxBody)
		if err != nil {
			return nil, nil, err
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, nil, err
		}
		return body, body, nil
	}
	return nil, nil, nil // no body
}

// readWhole reads a response body whole, however it is framed (to the
// end of the connection when neither chunked nor by length); trailers go
// with the chunking.
func readWhole(br *bufio.Reader, h *head) ([]byte, error) {
	if h.faultyFraming() {
		return nil, errFaultyFraming
	}
	if h.has("transfer-encoding", "chunked") || h.get("content-length") != "" {
		_, body, err := readBody(br, h)
		return body, err
	}
	return io.ReadAll(io.LimitReader(br, maxBody))
}

// copyBody copies a response body framed as its head says, flushing as
// it goes (an event stream must not wait in a buffer). When events is set
// the body is an event stream whose data lines pass through it (and a
// chunked one is re-chunked).
func copyBody(w reportingWriter, br *bufio.Reader, h *head, events func([]byte) []byte) error {
	switch {
	case h.faultyFraming():
		return errFaultyFraming
	case h.has("transfer-encoding", "chunked"):
		return copyChunked(w, br, events)
	case h.get("content-length") != "":
		n, err := h.length(math.MaxInt64) // copied, not held
		if err != nil {
			return err
		}
		_, err = io.CopyN(w, br, n)
		return err
	case events != nil:
		// an event stream to the end of the connection
		s := &sseLines{fn: events}
		buf := make([]byte, 32<<10)
		for {
			n, err := br.Read(buf)
			if n > 0 {
				w.Write(s.feed(buf[:n]))
				if ferr := w.Flush(); ferr != nil {
					return ferr
				}
			}
			if err != nil {
				w.Write(s.rest())
				return nil
			}
		}
	}
	_, err := io.Copy(w, br) // to the end of the connection
	return err
}

// copyChunked copies a chunked body chunk by chunk, flushing each; an
// event stream is re-chunked after its data lines pass through events.
func copyChunked(w reportingWriter, br *bufio.Reader, events func([]byte) []byte) error {
	var s *sseLines
	if events != nil {
		s = &sseLines{fn: events}
	}
	for {
		sizeLine, chunk, last, err := nextChunk(br, maxBody)
		if err != nil {
			return err
		}
		if last {
			if s != nil {
				writeChunk(w, s.rest())
			}
			t, err := trailers(br)
			if err != nil {
				return err
			}
			w.WriteString(sizeLine)
			w.WriteString(t)
			return w.Flush()
		}
		if s != nil {
			writeChunk(w, s.feed(chunk[:len(chunk)-2]))
		} else {
			w.WriteString(sizeLine)
			w.Write(chunk)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// nextChunk reads one chunk of a chunked body: its size line as it came,
// and its data with the CRLF after it (none for the last chunk).
func nextChunk(br *bufio.Reader, limit int) (sizeLine string, chunk []byte, last bool, err error) {
	sizeLine, err = br.ReadString('\n')
	if err != nil {
		return "", nil, false, err
	}
	sz, _, _ := strings.Cut(strings.TrimRight(sizeLine, "\r\n"), ";")
	n, err := strconv.ParseInt(strings.TrimSpace(sz), 16, 64)
	if err != nil || n < 0 || n > int64(limit) {
		return "", nil, false, fmt.Errorf("bad chunk size %q", sizeLine)
	}
	if n == 0 {
		return sizeLine, nil, true, nil
	}
	chunk = make([]byte, n+2)
	_, err = io.ReadFull(br, chunk)
	return sizeLine, chunk, false, err
}

// trailers reads what follows the last chunk, up to the blank line, as it
// came.
func trailers(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		b.WriteString(l)
		if strings.TrimRight(l, "\r\n") == "" {
			return b.String(), nil
		}
	}
}

func writeChunk(w reportingWriter, b []byte) {
	if len(b) == 0 {
		return // a zero-length chunk would end the body
	}
	fmt.Fprintf(w, "%x\r\n", len(b))
	w.Write(b)
	w.WriteString("\r\n")
}

// sseLines passes an event stream through line by line, each data field
// (a JSON-RPC message) through fn; a partial line waits for its end.
type sseLines struct {
	fn      func([]byte) []byte
	partial []byte
}

func (s *sseLines) feed(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.partial = append(s.partial, b...)
			break
		}
		line := append(s.partial, b[:i+1]...)
		s.partial = nil
		b = b[i+1:]
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			msg := bytes.TrimRight(data, "\r\n")
			if rewritten := s.fn(msg); !bytes.Equal(rewritten, msg) {
				line = append(append([]byte("data: "), rewritten...), '\n')
			}
		}
		out = append(out, line...)
	}
	return out
}

// rest is what is left at the end of the stream.
func (s *sseLines) rest() []byte {
	p := s.partial
	s.partial = nil
	return p
}

package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/rawfd"
)

// Client talks to a hub over its socket. It is what the shell shim and
// other out-of-process adapters use; its methods mirror the Hub's.
type Client struct {
	mu   sync.Mutex
	conn *quiet
	r    *bufio.Reader
	enc  *json.Encoder

	// records waiting to be written (Record does not wait for the
	// socket): the flusher writes them, and every call writes them first,
	// so they keep their place
	qmu      sync.Mutex
	queue    []event.Event
	kick     chan struct{}
	flushed  chan struct{} // closed when the flusher has stopped
	qclosed  bool          // Close began: records are dropped
	recorded bool          // Record was called: the flusher runs

	unanswered bool   // a line was sent with noreply (EndAsync); c.mu
	line       []byte // the last lean line's buffer (writeLocked); c.mu
}

// dialUnix connects to a Unix socket with system calls rather than package
// net: a binary that links net (and cgo) is dynamically linked, and the
// shim, which links this package, then starts a millisecond slower.
func dialUnix(path string) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, &os.SyscallError{Syscall: "socket", Err: err}
	}
	for {
		// blocking: waits while the hub's listen queue is full
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
	}
	if err == nil {
		// non-blocking, so the File reads and writes through the poller
		err = syscall.SetNonblock(fd, true)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// quiet is the hub connection read and written with raw system calls
// (see package quietio), closed as the file it is. Its parts change
// once, under the client's lock, when it leaves the poller (tellOnly).
type quiet struct {
	file *os.File
	io.Reader
	io.Writer
	unpolled bool
}

func (q *quiet) Close() error { return q.file.Close() }

// tellOnly takes the connection out of Go's poller, for a client that
// from now on sends lines no one answers (see quietio.Unpolled): in the
// poller, the hub's reading each of them woke this process for nothing.
// A call that is answered after it waits for the answer in the kernel.
// Left as it was if that cannot be done.
func (q *quiet) tellOnly() {
	if q.unpolled {
		return
	}
	q.unpolled = true
	f, w, err := rawfd.Unpolled(q.file)
	if err != nil {
		return
	}
	q.file, q.Reader, q.Writer = f, f, w
}

// Dial connects to the hub listening at the Unix socket path.
func Dial(path string) (*Client, error) {
	if s := TokenSocket(); s != "" {
		path = s // its session's hub, whatever the environment says
	}
	conn, err := dialUnix(path)
	if err != nil {
		return nil, err
	}
	if err := sayHello(conn); err != nil {
		conn.Close()
		return nil, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	q := &quiet{file: conn, Reader: rawfd.Reader(conn), Writer: rawfd.Writer(conn)}
	return &Client{conn: q, r: bufio.NewReaderSize(q, 64<<10), enc: json.NewEncoder(q),
		kick: make(chan struct{}, 1), flushed: make(chan struct{})}, nil
}

func (c *Client) do(req Request) (reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	if err := c.writeLocked(&req); err != nil {
		return reply{}, err
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return reply{}, err
	}
	resp, err := parseReply(line)
	if err != nil {
		return reply{}, err
	}
	if !resp.OK {
		return resp, errors.New(resp.Error)
	}
	return resp, nil
}

// Begin announces a command and returns its id.
func (c *Client) Begin(b Begin) (int, error) {
	r, err := c.do(Request{Op: "begin", Begin: &b})
	return r.ID, err
}

// BeginArmed is Begin that also says whether an intervention can still
// fire (see Hub.Armed).
func (c *Client) BeginArmed(b Begin) (int, bool, error) {
	r, err := c.do(Request{Op: "begin", Begin: &b})
	return r.ID, r.Armed, err
}

// EndAsync reports a command's result and asks for no answer: for when
// Armed said no message can come. It returns once the line is written;
// errors are dropped.
func (c *Client) EndAsync(id int, e End) {
	c.send(Request{Op: "end", ID: id, End: &e, NoReply: true})
}

// BeginQuiet announces a command without waiting for the hub: for a
// relay the hub has told that nothing can fire any more (armed false). Its
// end is EndQuiet with the same key. It returns once the line is written;
// errors are dropped, as EndAsync's are.
func (c *Client) BeginQuiet(b Begin, key string) {
	c.send(Request{Op: "begin", Begin: &b, NoReply: true, Key: key})
}

// EndQuiet ends the command BeginQuiet began under key, asking for no
// answer.
func (c *Client) EndQuiet(key string, e End) {
	c.send(Request{Op: "end", End: &e, NoReply: true, Key: key})
}

// Told reports a command that is over, in one line and without waiting:
// for a relay's call the hub has said nothing can fire on, and that
// cannot change a file (a read), so that the hub need not hear of it
// before it runs. The hub begins and ends it when the line comes: a file
// changed meanwhile is taken first, as a native edit, as it would have
// been had the call not run.
func (c *Client) Told(b Begin, e End) {
	c.send(Request{Op: "end", Begin: &b, End: &e, NoReply: true})
}

// ToldText is Told for an end whose output is given as the JSON string
// that holds it (a tool result's one text block as its server wrote it,
// which jsonlex has read whole): the line carries that string as it is.
// A relay's read of a file was otherwise decoded and written again on
// every call, the most of what the relay did for it; the hub reads the
// same text either way.
func (c *Client) ToldText(b Begin, e End, output json.RawMessage) {
	c.send(Request{Op: "end", Begin: &b, End: &e, NoReply: true, outputJSON: output})
}

// send writes a request that gets no answer (lean when it can be). Its
// callers send such lines once nothing can fire, and from then on nearly
// all they say is unanswered: the connection leaves the poller.
func (c *Client) send(req Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.tellOnly()
	c.flushLocked()
	c.writeLocked(&req)
	c.unanswered = true
}

// writeLocked writes req's line: lean, in a buffer the client keeps,
// when it can be. A relay writes a line or two on every call, and on
// this project's machines each fresh allocation of a call is a cache
// miss; so the line's buffer is kept (but one grown past maxKept), and
// req's begin and end stay on their caller's stack (see own).
func (c *Client) writeLocked(req *Request) error {
	line, ok := appendLeanLine(c.line[:0], req)
	if !ok {
		return c.enc.Encode(own(req))
	}
	if cap(line) <= maxKept {
		c.line = line
	}
	_, err := c.conn.Write(line)
	return err
}

// maxKept is the largest line buffer a client keeps between lines: a
// long result's line is let go.
const maxKept = 16 << 10

// own is a copy of req, and of what it points to, for encoding/json,
// whose reflection keeps on the heap whatever it is given a pointer to.
// Its strings are cloned: escape analysis does not tell a struct's
// fields apart, so handing on one of req's strings as it is would send
// the begin and end req points to to the heap as well.
func own(req *Request) Request {
	out := Request{Op: strings.Clone(req.Op), ID: req.ID, Channel: strings.Clone(req.Channel), NoReply: req.NoReply, Key: strings.Clone(req.Key)}
	if req.Begin != nil {
		b := *req.Begin
		out.Begin = &b
	}
	if req.End != nil {
		e := *req.End
		if req.outputJSON != nil {
			// encoding/json writes the text: decoded here, from a copy
			// (req's own memory given on would move every caller's
			// begin and end to the heap, escape analysis being blind to
			// which field goes)
			json.Unmarshal(bytes.Clone(req.outputJSON), &e.Output)
		}
		out.End = &e
	}
	if req.Event != nil {
		ev := *req.Event
		out.Event = &ev
	}
	return out
}

// End reports a command's result and returns the messages to deliver.
func (c *Client) End(id int, e End) ([]Message, error) {
	r, err := c.do(Request{Op: "end", ID: id, End: &e})
	return r.Messages, err
}

// Observe sends an adapter's event.
func (c *Client) Observe(ev event.Event) (int64, error) {
	r, err := c.do(Request{Op: "observe", Event: &ev})
	return r.Seq, err
}

// ObserveSync is Observe then Sync(channel) in one round trip.
func (c *Client) ObserveSync(ev event.Event, channel string) ([]Message, error) {
	r, err := c.do(Request{Op: "observe", Event: &ev, Channel: channel})
	return r.Messages, err
}

// Messages drains the messages pending for a channel.
func (c *Client) Messages(channel string) ([]Message, error) {
	r, err := c.do(Request{Op: "messages", Channel: channel})
	return r.Messages, err
}

// Sync takes native edits now and returns the messages waiting.
func (c *Client) Sync(channel string) ([]Message, error) {
	r, err := c.do(Request{Op: "sync", Channel: channel})
	return r.Messages, err
}

// SelfCheck asks the session's self-check for its report on the
// workspace as it is.
func (c *Client) SelfCheck() (string, error) {
	r, err := c.do(Request{Op: "selfcheck"})
	if err != nil || len(r.Messages) == 0 {
		return "", err
	}
	return r.Messages[0].Text, nil
}

// Status asks for the hub's state as a client may know it: its counts of
// events, steps and running commands, never the interventions (which
// would tell the agent its condition). Its answer comes after every line
// sent before it is taken.
func (c *Client) Status() (Status, error) {
	r, err := c.do(Request{Op: "status"})
	var st Status
	if err == nil && r.Status != nil {
		err = json.Unmarshal(r.Status, &st)
	}
	return st, err
}

// Close writes the records still queued, then closes the connection. Calls after Close fail.
func (c *Client) Close() error {
	c.qmu.Lock()
	closing, recorded := !c.qclosed, c.recorded
	c.qclosed = true
	if closing && recorded {
		close(c.kick)
	}
	c.qmu.Unlock()
	if closing && recorded {
		<-c.flushed
	}
	c.mu.Lock()
	unanswered := c.unanswered
	c.mu.Unlock()
	if closing && (recorded || unanswered) {
		// a call answered is a call after every line not answered: the
		// hub has taken them all before the connection goes
		c.do(Request{Op: "status"})
	}
	return c.conn.Close()
}

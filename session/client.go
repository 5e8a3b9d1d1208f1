package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"sync"

	"github.com/swetouch/swetouch/event"
)

// Client talks to a hub over its socket. It is what the shell shim and
// other out-of-process adapters use; its methods mirror the Hub's.
type Client struct {
	mu    sync.Mutex
	conn  net.Conn
	r     *bufio.Reader
	enc   *json.Encoder
	async sync.WaitGroup // EndAsync calls in flight
}

// Dial connects to the hub listening at the Unix socket path.
func Dial(path string) (*Client, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	return &Client{conn: c, r: bufio.NewReaderSize(c, 64<<10), enc: json.NewEncoder(c)}, nil
}

func (c *Client) do(req Request) (Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(req); err != nil {
		return Response{}, err
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return Response{}, err
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return Response{}, err
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

// EndAsync reports a command's result without waiting for the answer:
// for when Armed said no message can come. Errors are dropped.
func (c *Client) EndAsync(id int, e End) {
	c.async.Add(1)
	go func() {
		defer c.async.Done()
		c.do(Request{Op: "end", ID: id, End: &e})
	}()
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

// Status asks for the hub's state.
func (c *Client) Status() (Status, error) {
	r, err := c.do(Request{Op: "status"})
	if r.Status == nil {
		return Status{}, err
	}
	return *r.Status, err
}

// Close waits for EndAsync calls in flight, then closes the connection.
func (c *Client) Close() error {
	c.async.Wait()
	return c.conn.Close()
}

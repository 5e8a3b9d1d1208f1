package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/session/wire"
)

// Request and Response are the protocol's lines.
type (
	Request  = wire.Request
	Response = wire.Response
)

// Serve answers clients on l until ctx ends or l is closed. A bad line gets
// an error response naming the line; the connection stays open.
func (h *Hub) Serve(ctx context.Context, l net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// a client still connected when serving stops (a relay, a
			// shim a leftover process holds) is hung up on, not waited for
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			tc := &trackedConn{Conn: c}
			defer tc.close()
			if sc, ok := c.(syscall.Conn); ok {
				tc.raw, _ = sc.SyscallConn()
			}
			h.serveConn(ctx, tc)
		}()
	}
}

// trackedConn is a net.Conn that knows whether its client has said
// something not taken yet (see fdConn.unread): it reads through the
// connection's raw descriptor, saying when it waits with nothing taken.
type trackedConn struct {
	net.Conn
	raw syscall.RawConn // nil: cannot be looked at
	readState
}

func (c *trackedConn) Read(p []byte) (int, error) {
	if c.raw == nil || len(p) == 0 {
		return c.Conn.Read(p)
	}
	var n int
	var err error
	rerr := c.raw.Read(func(fd uintptr) bool {
		c.setWaiting(false)
		n, err = rawIO(syscall.SYS_RECVFROM, int(fd), p, syscall.MSG_DONTWAIT)
		if err == syscall.EAGAIN || err == syscall.EINTR {
			c.setWaiting(true)
			return false // the poller wakes this when something comes
		}
		return true
	})
	c.setWaiting(false)
	switch {
	case rerr != nil:
		return 0, rerr
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *trackedConn) unread() bool {
	if c.raw == nil {
		return false
	}
	return c.readState.unread(func() bool {
		readable := false
		c.raw.Control(func(fd uintptr) { readable = pollNow(int(fd)) })
		return readable
	})
}

func (c *trackedConn) close() { c.closeWith(func() { c.Conn.Close() }) }

// yielder is a connection that can step aside for its client after an
// answer (see fdConn.yield).
type yielder interface{ yield() }

// serveConn answers one client's lines until it hangs up.
// A client is admitted before a byte of it is read: one that is not is
// told why and hung up on, so it can neither fill the hub's memory with a
// line nor ask anything.
func (h *Hub) serveConn(ctx context.Context, c io.ReadWriter) {
	if err := h.admit(c); err != nil {
		refuse(c, err)
		return
	}
	if err := h.checkToken(c); err != nil {
		refuse(c, err)
		return
	}
	sc := h.lineReaderFor(c)
	defer h.doneReading(sc)
	enc := json.NewEncoder(c)
	var out []byte
	send := func(r Response) error {
		var ok bool
		if out, ok = wire.AppendResponse(out[:0], r); ok {
			_, err := c.Write(out)
			return err
		}
		return enc.Encode(r)
	}
	y, yields := c.(yielder)
	if o, ok := c.(origin); ok {
		ctx = withOrigin(ctx, o)
		// a client killed mid-command (a shim, by a timeout's SIGKILL)
		// never sends the end of what it began
		defer h.abandon(context.WithoutCancel(ctx), o)
	}
	keys := map[string]int{} // commands begun unanswered (BeginQuiet), by key
	for line := 1; sc.Scan(); line++ {
		if why := sc.Dropped(); why != "" {
			// the rest of the line is dropped; the next one is read as
			// usual, so the session goes on
			if err := send(Response{Error: fmt.Sprintf("line %d: %s", line, why)}); err != nil {
				return
			}
			h.lineDone()
			continue
		}
		req, lean := wire.ParseRequest(sc.Bytes())
		var resp Response
		var err error
		if !lean {
			req = Request{}
			err = json.Unmarshal(sc.Bytes(), &req)
		}
		if err == nil && req.Op == "hello" {
			// a session's shim opens with its token; where the hub asks
			// for none (the agent is not sandboxed) it is passed over,
			// unanswered, so the shim's first answer is still its begin's
			h.lineDone()
			continue
		}
		if err == nil {
			err = checkRequest(req)
		}
		told := req.Op == "end" && req.Begin != nil
		if err == nil && told {
			err = checkTold(req)
		}
		if err == nil && req.Key != "" && req.Op == "end" {
			id, ok := keys[req.Key]
			if !ok {
				err = fmt.Errorf("field \"key\": no command was begun as %q", req.Key)
			}
			req.ID = id
			delete(keys, req.Key)
		}
		if err != nil {
			resp.Error = fmt.Sprintf("line %d: %v", line, err)
		} else if req.Op == "end" && req.End != nil && (!req.NoReply || yields || told) {
			// answered as soon as the messages are known (see EndAnswering)
			answered := false
			answer := func(m []Message) {
				answered = true
				if !req.NoReply {
					send(Response{OK: true, Messages: m})
				}
				if yields {
					y.yield()
				}
			}
			var err error
			if told {
				// a command told in one line once it is over (Client.Told)
				err = h.Told(ctx, *req.Begin, *req.End, answer)
			} else {
				err = h.EndAnswering(ctx, req.ID, *req.End, answer)
			}
			if answered {
				h.lineDone()
				continue
			}
			resp.Error = fmt.Sprintf("line %d: %v", line, err)
		} else {
			resp = h.call(ctx, req)
			if req.Key != "" && req.Op == "begin" && resp.Error == "" {
				keys[req.Key] = resp.ID
			}
			if resp.Error != "" {
				resp.Error = fmt.Sprintf("line %d: %s", line, resp.Error)
			}
		}
		if !req.NoReply {
			if err := send(resp); err != nil {
				return
			}
		}
		h.lineDone()
	}
}

// checkTold refuses an end that begins its command and names one too,
// or carries no end.
func checkTold(req Request) error {
	if req.ID != 0 || req.Key != "" {
		return errors.New(`field "begin": an end that begins its command names no id or key`)
	}
	if req.End == nil {
		return errors.New(`field "end": missing`)
	}
	return nil
}

// checkRequest refuses what a client may not say: events only the hub
// makes (the user's edits and messages, interventions, verdicts, the
// session's own). An adapter reports the agent's actions (observe, and
// the events inside end) and the traffic it relays (record), by whichever
// side sent it (the ACP relay's own requests are the harness's); nothing
// scores traffic.
func checkRequest(req Request) error {
	switch req.Op {
	case "observe":
		if req.Event != nil {
			if field, why := actionFault(*req.Event); field != "" {
				return fmt.Errorf("field %q: %s", "event."+field, why)
			}
		}
	case "end":
		if req.End != nil {
			for i, ev := range req.End.Events {
				if field, why := actionFault(ev); field != "" {
					return fmt.Errorf("field %q: %s", fmt.Sprintf("end.events[%d].%s", i, field), why)
				}
			}
		}
	case "record":
		if req.Event != nil {
			ev := req.Event
			if ev.Kind != event.Traffic {
				return fmt.Errorf(`field "event.kind": a client records only traffic, not %q`, ev.Kind)
			}
		}
	}
	return nil
}

// actionFault says why a client may not report ev, and in which of its
// fields ("" when it may): only the agent's reads, edits, tests and runs.
// The caller names the event, only once it is refused (a name made for
// every event was a tenth of a quiet call's time in the hub).
func actionFault(ev event.Event) (field, why string) {
	switch ev.Kind {
	case event.Read, event.Edit, event.Test, event.Run:
	default:
		return "kind", fmt.Sprintf("a client reports the agent's reads, edits, tests and runs, not %q", ev.Kind)
	}
	if ev.Actor != "" && ev.Actor != event.Agent {
		return "actor", fmt.Sprintf("a client reports only the agent's actions, not %q's", ev.Actor)
	}
	if ev.Attempt != nil {
		return "attempt", "interventions are the hub's"
	}
	return "", ""
}

// maxLine is the longest line the hub takes (a command's output is
// elided long before this).
const maxLine = 64 << 20

func (h *Hub) lineLimit() int {
	if h.maxLine > 0 {
		return h.maxLine
	}
	return maxLine
}

// call does one request, for the connection ctx names (withOrigin).
func (h *Hub) call(ctx context.Context, req Request) Response {
	var r Response
	var err error
	switch req.Op {
	case "begin":
		if req.Begin == nil {
			return Response{Error: `field "begin": missing`}
		}
		r.ID, r.Armed, err = h.beginArmed(ctx, *req.Begin)
	case "end":
		if req.End == nil {
			return Response{Error: `field "end": missing`}
		}
		r.Messages, err = h.End(ctx, req.ID, *req.End)
	case "observe":
		if req.Event == nil {
			return Response{Error: `field "event": missing`}
		}
		r.Seq, err = h.Observe(ctx, *req.Event)
		if err == nil && req.Channel != "" {
			// observe, then sync on the channel: one round trip for a
			// relay that does both for every action
			r.Messages, err = h.Sync(ctx, req.Channel)
		}
	case "record":
		if req.Event == nil {
			return Response{Error: `field "event": missing`}
		}
		err = h.Record(*req.Event)
	case "messages":
		r.Messages = h.drain(ctx, orDefault(req.Channel, "file"))
	case "sync":
		r.Messages, err = h.Sync(ctx, req.Channel)
	case "status":
		// a barrier for the client (every line before it is taken), and
		// counts; never the interventions, which would tell an agent its
		// condition
		s := h.status(ctx)
		r.Status = &Status{Seq: s.Seq, Steps: s.Steps, Running: s.Running}
	case "selfcheck":
		if h.selfCheck == nil {
			return Response{Error: "this session has no self-check"}
		}
		var report string
		if report, err = h.selfCheck(ctx); err == nil {
			r.Messages = []Message{{Text: report}}
		}
	default:
		return Response{Error: fmt.Sprintf("field \"op\": unknown %q", req.Op)}
	}
	if err != nil {
		return Response{Error: err.Error()}
	}
	r.OK = true
	return r
}

package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/swetouch/swetouch/internal/rawfd"
	"github.com/swetouch/swetouch/proxy"
	"github.com/swetouch/swetouch/session"
)

// Hub is what the relay needs of the session: the socket client (or an
// adapter over an in-process hub) satisfies it.
type Hub interface {
	Begin(session.Begin) (int, error)
	End(int, session.End) ([]session.Message, error)
}

// Relay watches the tool calls between an MCP client and a server. Only
// tools/call requests and their results are decoded; everything else
// passes as the bytes it came as.
type Relay struct {
	hub      Hub // nil: relay only
	classify *Classifier
	log      io.Writer

	mu      sync.Mutex
	pending map[string]call      // by the client request's raw id
	lists   map[string]bool      // tools/list requests not yet answered, by id
	places  map[string]placement // by scope and tool, from tools/list
	// quiet is set once the hub has said no intervention can fire: from
	// then on results pass without waiting for the hub at all (an
	// intervention, once done, never comes back)
	quiet atomic.Bool
	keys  atomic.Int64   // the last quiet call's key number
	late  sync.WaitGroup // reports still on their way to the hub
}

// Wait waits for the reports still on their way to the hub: the relay's
// owner calls it before closing the hub connection.
func (r *Relay) Wait() { r.late.Wait() }

// callKey appends a call's key in the relay's maps to buf: its scope
// and its id's IDKey (ids are unique only within a scope), with no
// allocation for the ids clients send (a lookup by it makes none).
func callKey(buf []byte, scope string, id json.RawMessage) []byte {
	return proxy.AppendIDKey(append(append(buf, scope...), 0), id)
}

// Later is the reports of calls nothing can fire on, kept back while
// their results are on their way to the client: the owner that wrote the
// results sends them, on its own goroutine. A report sent from a
// goroutine of its own costs the relay a second thread's wake-up on
// every call (on two cores, a call's worth of the client's time).
type Later struct {
	held []laterReport
}

// laterReport is one piece of work kept back: a result line to read and
// end its call by (FromServerFirst, held with no closure made), a call's
// end, or the parts of one to make.
type laterReport struct {
	r     *Relay
	scope string
	line  []byte
	end   func()
	prep  *prepared // a call's end's parts to make (FromClientLater)
}

func (l *Later) add(f func()) { l.held = append(l.held, laterReport{end: f}) }

// Send sends the reports kept back and empties l.
func (l *Later) Send() {
	for i, h := range l.held {
		switch {
		case h.end != nil:
			h.end()
		case h.prep != nil:
			h.r.prepare(h.prep)
		default:
			h.r.fromServer(h.scope, h.line, nil, true)
		}
		l.held[i] = laterReport{}
	}
	l.held = l.held[:0]
}

type call struct {
	begun chan begun // the hub's answer to begin
	key   string     // begun quietly (quietHub): the key its end gives
	told  bool       // not begun at all: told with its end (toldHub)
	prep  *prepared  // its end's parts, made once it has gone on (nil: at its end)
	toolCall
}

type begun struct {
	id    int  // -1 when the hub was not told
	armed bool // an intervention can still fire: wait for end's answer
}

// begin waits for the call's begin to be answered.
func (c call) begin() begun {
	if c.begun == nil {
		return begun{id: -1}
	}
	b := <-c.begun
	c.begun <- b // later readers see it too
	return b
}

// begin tells the hub a call begins and hands its answer to the call.
func (r *Relay) begin(c call, b session.Begin) {
	var res begun
	var err error
	if ah, ok := r.hub.(armedHub); ok {
		res.id, res.armed, err = ah.BeginArmed(b)
	} else {
		res.id, err = r.hub.Begin(b)
		res.armed = true
	}
	if err != nil {
		res.id = -1
	} else if _, ok := r.hub.(armedHub); ok && !res.armed {
		r.quiet.Store(true) // an intervention, once done, never comes back
	}
	c.begun <- res
}

// armedHub is a hub that says, on begin, whether end's answer can matter.
type armedHub interface {
	BeginArmed(session.Begin) (int, bool, error)
	EndAsync(int, session.End)
}

// quietHub is a hub a call can begin and end on without waiting for it at
// all, once nothing can fire: one line each way, no answer, no goroutine
// parked on the socket.
type quietHub interface {
	BeginQuiet(b session.Begin, key string)
	EndQuiet(key string, e session.End)
}

// toldHub is a hub a call that changes no file can be told of in one
// line once it is over (wire.Client.Told).
type toldHub interface {
	Told(b session.Begin, e session.End)
}

// toldTextHub is a toldHub that takes the call's output as the JSON
// string it came in (wire.Client.ToldText).
type toldTextHub interface {
	ToldText(b session.Begin, e session.End, output json.RawMessage)
}

// NewRelay returns a relay reporting to hub (nil relays only) and logging
// malformed traffic to log.
func NewRelay(hub Hub, c *Classifier, log io.Writer) *Relay {
	if log == nil {
		log = io.Discard
	}
	return &Relay{hub: hub, classify: c, log: log, pending: map[string]call{}, lists: map[string]bool{}, places: map[string]placement{}}
}

// FromClient sees a line the client sends to the server.
func (r *Relay) FromClient(line []byte) []byte { return r.FromClientIn("", line) }

// FromServer sees a line the server sends to the client: the response to
// a pending tools/call is reported to the hub, and the user's messages, if
// any, are added to the result as a text block.
func (r *Relay) FromServer(line []byte) []byte { return r.FromServerIn("", line) }

// FromServerIn is FromServer for one of several sessions.
func (r *Relay) FromServerIn(scope string, line []byte) []byte {
	return r.FromServerLater(scope, line, nil)
}

// FromClientIn is FromClient for one of several sessions sharing the
// relay (ids are unique only within a session).
func (r *Relay) FromClientIn(scope string, line []byte) []byte {
	return r.fromClient(scope, line, nil)
}

// fromClient is FromClientIn; with later, a call the hub hears of has
// the parts of its end made once the line has gone (FromClientLater).
func (r *Relay) fromClient(scope string, line []byte, later *Later) []byte {
	e, ok := proxy.Peek(line)
	if !ok {
		if len(line) > 0 {
			fmt.Fprintf(r.log, "swetouch mcp: client sent a line that is not a JSON-RPC object (relayed): %.80q\n", line)
		}
		return line
	}
	if e.Method == "notifications/cancelled" {
		r.cancelled(scope, e.Params)
		return line
	}
	if e.IsRequest() && e.Method == "tools/list" {
		var kb [128]byte // a scope (an HTTP session id) and an id
		r.mu.Lock()
		r.lists[string(callKey(kb[:0], scope, e.ID))] = true
		r.mu.Unlock()
		return line
	}
	if !e.IsRequest() || e.Method != "tools/call" {
		return line
	}
	tc, err := readTool(e.Params)
	if err != nil {
		fmt.Fprintf(r.log, "swetouch mcp: tools/call params: %v (relayed)\n", err)
		return line
	}
	c := call{toolCall: tc}
	if r.hub != nil && !r.beginCall(&c) {
		return line
	}
	if r.hub != nil && later != nil {
		c.prep = &prepared{toolCall: c.toolCall, told: c.told}
		later.held = append(later.held, laterReport{r: r, prep: c.prep})
	}
	var kb [128]byte // a scope (an HTTP session id) and an id
	key := callKey(kb[:0], scope, e.ID)
	r.mu.Lock()
	r.pending[string(key)] = c
	r.mu.Unlock()
	return line
}

// beginCall tells the hub a call begins, as what the hub has said allows;
// false when the call's arguments cannot be read (it is relayed, and not
// reported).
func (r *Relay) beginCall(c *call) bool {
	if _, canTell := r.hub.(toldHub); canTell && r.quiet.Load() && r.classify.ReadsOnly(c.tool) {
		// nothing can fire and the call changes no file: the hub need
		// not hear of it before it runs, and hears of it once, with its
		// result (what changed before is a native edit all the same; one
		// line, one wake-up of the hub). Its arguments' text is written
		// then too, off the request's way.
		c.told = true
		return true
	}
	b, ok := r.beginOf(c.toolCall)
	if !ok {
		return false
	}
	qh, canQuiet := r.hub.(quietHub)
	switch {
	case r.quiet.Load() && canQuiet:
		// nothing can fire any more: told in one line, before the
		// request goes on, with no answer to wait for
		c.key = "mcp-" + strconv.FormatInt(r.keys.Add(1), 10)
		qh.BeginQuiet(b, c.key)
	case r.quiet.Load():
		// told without holding the request back (a file the server
		// writes before the hub has the begin is then a native edit, a
		// label and no decision)
		c.begun = make(chan begun, 1)
		go r.begin(*c, b)
	default:
		// held until the hub has it: edits made before are taken as
		// native first, and the server's own writes are the call's,
		// which an intervention may fire on
		c.begun = make(chan begun, 1)
		r.begin(*c, b)
	}
	return true
}

// beginOf is the begin the hub is told of a call; false, said in the
// log, when its arguments cannot be read.
func (r *Relay) beginOf(c toolCall) (session.Begin, bool) {
	// the command is written once, in a buffer of its own that is never
	// written again (so it is the string's, as a strings.Builder's is)
	cmd := make([]byte, 0, len("mcp  {}")+len(c.tool)+len(c.args)+len(c.args)/8)
	cmd = append(append(append(cmd, "mcp "...), c.tool...), ' ')
	cmd, err := c.appendText(cmd)
	if err != nil {
		fmt.Fprintf(r.log, "swetouch mcp: tools/call params: %v (relayed)\n", err)
		return session.Begin{}, false
	}
	return session.Begin{Command: unsafe.String(unsafe.SliceData(cmd), len(cmd)), Source: "mcp"}, true
}

// cancelled closes the hub's action for a call the client gave up on:
// no response may ever come, and an open action would hold the hub.
func (r *Relay) cancelled(scope string, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var kb [128]byte // a scope (an HTTP session id) and an id
	key := callKey(kb[:0], scope, p.RequestID)
	r.mu.Lock()
	c, ok := r.pending[string(key)]
	delete(r.pending, string(key))
	r.mu.Unlock()
	if !ok || r.hub == nil {
		return
	}
	end := session.End{Exit: 130, Events: r.eventsOf(c)}
	if c.key != "" || c.told {
		r.endUnanswered(c, end)
		return
	}
	if b := c.begin(); b.id >= 0 {
		r.hub.End(b.id, end)
	}
}

// FromServerLater is FromServerIn for an owner that writes the result
// and then sends what later holds (Later.Send): the end of a call nothing
// can fire on waits there rather than on a goroutine of its own. A nil
// later sends it from a goroutine.
func (r *Relay) FromServerLater(scope string, line []byte, later *Later) []byte {
	return r.fromServer(scope, line, later, false)
}

// FromServerFirst is FromServerLater for an owner that leaves line as
// it is until it sends later. Once the hub has said nothing can fire
// (no intervention can, and no message waits), no end's answer carries
// a message, whenever its call began: every line the server sends is
// the line the client gets. So it goes before the relay reads it at
// all, and is read, and its call ended, when later is sent. What the
// hub hears, and in what order, is as FromServerLater's, which ends a
// call after its result too.
func (r *Relay) FromServerFirst(scope string, line []byte, later *Later) []byte {
	if r.hub == nil || !r.quiet.Load() {
		return r.fromServer(scope, line, later, false)
	}
	later.held = append(later.held, laterReport{r: r, scope: scope, line: line})
	return line
}

// fromServer is FromServerLater; sent says line has gone to the client
// already (FromServerFirst), so a call's end is sent at once.
func (r *Relay) fromServer(scope string, line []byte, later *Later, sent bool) []byte {
	// a line gone to the client already is read for its call's end at
	// once: its result as its envelope is, in the one pass
	var lr leanReading
	var e proxy.Envelope
	var ok, read bool
	if sent && r.hub != nil {
		e, read, ok = proxy.PeekReading(line, lr.read)
	} else {
		e, ok = proxy.Peek(line)
	}
	reading := &lr
	if !read {
		reading = nil
	}
	if !ok {
		if len(line) > 0 {
			fmt.Fprintf(r.log, "swetouch mcp: server sent a line that is not a JSON-RPC object (relayed): %.80q\n", line)
		}
		return line
	}
	if !e.IsResponse() {
		return line
	}
	var kb [128]byte // a scope (an HTTP session id) and an id
	key := callKey(kb[:0], scope, e.ID)
	r.mu.Lock()
	c, ok := r.pending[string(key)]
	delete(r.pending, string(key))
	if r.lists[string(key)] {
		delete(r.lists, string(key))
		learnTools(e.Result, r.places, scope)
	}
	r.mu.Unlock()
	if !ok || r.hub == nil {
		return line
	}
	place := r.placement(scope, c.tool)
	if c.told {
		// told whole once its result is out (ended by the owner, when it
		// keeps later; else on a goroutine)
		switch {
		case sent:
			r.tell(c, e, place, reading)
		case later != nil:
			later.add(func() { r.tell(c, e, place, nil) })
		default:
			r.late.Add(1)
			go func() { defer r.late.Done(); r.tell(c, e, place, nil) }()
		}
		return line
	}
	if c.key != "" {
		// begun quietly: ended the same way, once the result is on its
		// way
		switch {
		case sent:
			end, _ := r.endKeeping(c, e, place, false, reading)
			r.endUnanswered(c, end)
		case later != nil:
			later.add(func() { r.endUnanswered(c, r.end(c, e, place)) })
		default:
			r.late.Add(1)
			go func() { defer r.late.Done(); r.endUnanswered(c, r.end(c, e, place)) }()
		}
		return line
	}
	ah, async := r.hub.(armedHub)
	if async && r.quiet.Load() {
		r.late.Add(1)
		go func() {
			defer r.late.Done()
			if b := c.begin(); b.id >= 0 {
				ah.EndAsync(b.id, r.end(c, e, place))
			}
		}()
		return line
	}
	b := c.begin()
	if b.id < 0 {
		return line
	}
	if async && !b.armed {
		r.quiet.Store(true)
		ah.EndAsync(b.id, r.end(c, e, place)) // nothing can come back: do not hold the result
		return line
	}
	msgs, err := r.hub.End(b.id, r.end(c, e, place))
	if err != nil || len(msgs) == 0 || len(e.Error) > 0 {
		return line
	}
	out, err := appendMessages(line, msgs, place)
	if err != nil {
		fmt.Fprintf(r.log, "swetouch mcp: could not add the message to the result: %v\n", err)
		return line
	}
	return out
}

// endUnanswered sends the end of a call begun quietly (by its key), or
// the whole of one never begun (told): no answer follows either.
func (r *Relay) endUnanswered(c call, e session.End) {
	if c.told {
		if b, ok := r.toldBegin(c); ok {
			r.hub.(toldHub).Told(b, e)
		}
		return
	}
	r.hub.(quietHub).EndQuiet(c.key, e)
}

// placement is where a tool's results carry messages: as its schema
// allows, or as though it had none when it was never listed.
func (r *Relay) placement(scope, tool string) placement {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.places[scope+"\x00"+tool]; ok {
		return p
	}
	return placement{key: MessageKey}
}

func argsJSON(a any) []byte {
	b, err := json.Marshal(a)
	if err != nil || string(b) == "null" {
		return []byte("{}")
	}
	return b
}

// toolResult is the part of a tools/call result the hub is told: its
// text blocks and whether it is an error. Every content block decodes as
// a textContent and only those of type text are kept: a whole
// CallToolResult decodes each block twice (to a map, then to its type),
// which was a sixth of the relay's own CPU per call.
type toolResult struct {
	Content []textContent `json:"content"`
	IsError bool          `json:"isError"`
}

// text is the text the result shows, for output-derived scopes.
func (res *toolResult) text() string {
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type == contentTypeText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// appendMessages adds the user's messages to a tools/call response: one
// more text block in content, and in structuredContent where the result
// has one, as place says. Every other field, known or not, is kept as it
// came.
func appendMessages(line []byte, msgs []session.Message, place placement) ([]byte, error) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, err
	}
	var result map[string]json.RawMessage
	if err := json.Unmarshal(resp["result"], &result); err != nil {
		return nil, err
	}
	var content []json.RawMessage
	if c, ok := result["content"]; ok {
		if err := json.Unmarshal(c, &content); err != nil {
			return nil, err
		}
	}
	var text strings.Builder
	for i, m := range msgs {
		if i > 0 {
			text.WriteByte('\n')
		}
		fmt.Fprintf(&text, "<user-message>\n%s\n</user-message>", strings.TrimRight(m.Text, "\n"))
	}
	block, err := json.Marshal(textContent{Type: contentTypeText, Text: text.String()})
	if err != nil {
		return nil, err
	}
	content = append(content, block)
	if result["content"], err = json.Marshal(content); err != nil {
		return nil, err
	}
	if raw, ok := result["structuredContent"]; ok && string(raw) != "null" {
		var sc map[string]json.RawMessage
		if json.Unmarshal(raw, &sc) == nil && place.carry(sc, text.String()) {
			if result["structuredContent"], err = marshal(sc); err != nil {
				return nil, err
			}
		}
	}
	if resp["result"], err = marshal(result); err != nil {
		return nil, err
	}
	return marshal(resp)
}

// RunStdio starts the server command with the relay between it and this
// process's stdio: the client's messages go to the server's stdin, the
// server's to stdout (its stderr, cwd and environment are as cmd says).
// When the client closes stdin the server gets EOF; the relay ends when
// the server exits, with its status.
func RunStdio(cmd *exec.Cmd, r *Relay, stdin io.Reader, stdout io.Writer) (int, error) {
	in, out, code, err := proxy.StartChild(cmd)
	if err != nil {
		return code, err
	}
	go func() {
		var sent Later
		proxy.PipeThen(rawfd.Writer(in), rawfd.Reader(proxy.Pollable(stdin)), func(line []byte) []byte { return r.FromClientLater("", line, &sent) }, sent.Send)
		sent.Send()
		in.Close() // the client hung up: the server sees EOF
	}()
	var later Later
	proxy.PipeThen(rawfd.Writer(stdout), rawfd.Reader(out), func(line []byte) []byte { return r.FromServerFirst("", line, &later) }, later.Send)
	later.Send() // what a failed write to the client held back: the calls still ended
	err = cmd.Wait()
	r.Wait()
	return proxy.ExitStatus(cmd, err)
}

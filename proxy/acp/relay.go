// Package acp is the shim between an editor and its coding agent over the
// Agent Client Protocol: a line relay that passes every message as the
// bytes it came as, observes what the agent reads, writes and runs (with
// line scope where the protocol says it), and delivers the user's
// messages as user turns.
package acp

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/proxy"
	"github.com/swetouch/swetouch/session"
)

// Hub is what the relay needs of the session; the socket client
// satisfies it. Observe reports a native action; Sync takes the file
// changes made since (an agent's own edit) and returns the messages due.
type Hub interface {
	Begin(session.Begin) (int, error)
	End(int, session.End) ([]session.Message, error)
	Observe(event.Event) (int64, error)
	Sync(channel string) ([]session.Message, error)
}

// Recorder takes the relay's traffic into the session's trajectory; the
// socket client is one.
type Recorder interface {
	Record(event.Event)
}

// Relay sits between an editor and an agent. FromEditor and FromAgent are
// the two directions' hooks (for proxy.Pipe); the relay also writes
// messages of its own (an injected prompt, its echo) through the same
// writers, a line at a time.
type Relay struct {
	hub     Hub      // nil: relay and record only
	rec     Recorder // nil: the traffic stays out of the trajectory
	noRec   bool
	root    string
	toAgent *lineWriter
	toEdit  *lineWriter
	traffic *lineWriter // nil: no traffic log
	now     func() time.Time
	wrapMCP func(server map[string]any) map[string]any
	// delivery is how a message reaches an agent mid-turn
	delivery Delivery

	mu        sync.Mutex
	steering  bool                       // the agent takes _session/steering
	turns     map[string]json.RawMessage // session → the editor's open prompt id
	injected  map[string]string          // our request id → session (an injected turn)
	held      map[string][][]byte        // session → editor prompts held behind our turn
	queued    map[string][]string        // session → messages waiting for the turn's end
	cancelled map[string]bool            // session → we cancelled its running turn
	steers    map[string]steerReq        // our steering request id → what it carries
	toolCalls map[string]toolCall        // session and tool call id → its updates so far
	requests  map[string]agentRequest    // the agent's open requests to the editor, by raw id
	terminals map[string]int             // terminal id → the hub's command id
	lastSess  string
	next      int

	// a conversation the relay holds itself (WithTurns)
	talk     Turns
	talkDone bool
	reply    map[string]string // session → the agent's text since its last tool call
	heldEnd  map[string][]byte // session → the editor's prompt response, held until the conversation ends
}

// Turns is the user of a conversation the relay plays itself: told the
// agent's reply each time a prompt turn ends, it answers with the next
// turn's message, or ends the conversation.
type Turns func(reply string) (next string, end bool)

// WithTurns has the relay play the user's next turns itself: the
// editor's prompt opens the conversation, and its turn ends, for the
// editor, when the conversation does; each later turn is a session/prompt
// of the relay's own, shown to the editor as a user message.
func WithTurns(t Turns) Option { return func(r *Relay) { r.talk = t } }

type steerReq struct {
	sess  string
	texts []string
}

type agentRequest struct {
	method  string
	session string
	begin   int // terminal/create: the hub's command id
	path    string
	// fs/write_text_file: the file before, and the content asked for
	// (nil: the file did not exist; the request had none)
	before, content *string
}

// Option configures a relay.
type Option func(*Relay)

// WithHub reports to a session hub.
func WithHub(h Hub) Option { return func(r *Relay) { r.hub = h } }

// WithRoot is the workspace: paths are reported relative to it.
func WithRoot(dir string) Option { return func(r *Relay) { r.root = dir } }

// WithoutTrafficEvents keeps the traffic out of the trajectory (the hub
// still sees every action).
func WithoutTrafficEvents() Option { return func(r *Relay) { r.noRec = true } }

// WithTraffic writes every message both ways to w as JSONL
// ({time, from, message}): the raw traffic log editors do not give.
func WithTraffic(w io.Writer) Option {
	return func(r *Relay) { r.traffic = &lineWriter{w: w} }
}

// WithClock sets the traffic log's clock.
func WithClock(now func() time.Time) Option { return func(r *Relay) { r.now = now } }

// Delivery says how the user's message reaches an agent in the middle of
// a turn.
type Delivery string

const (
	// Auto steers the running turn when the agent advertises
	// _session/steering, else queues.
	Auto Delivery = "auto"
	// Queue sends the message as a user turn once the current turn ends;
	// the editor's next prompt waits for it.
	Queue Delivery = "queue"
	// Interrupt cancels the running turn (session/cancel, as a person
	// pressing stop would) and sends the message as the next user turn;
	// the editor sees its turn end as cancelled.
	Interrupt Delivery = "interrupt"
)

// ParseDelivery reads a delivery mode's name.
func ParseDelivery(s string) (Delivery, error) {
	switch d := Delivery(s); d {
	case Auto, Queue, Interrupt:
		return d, nil
	}
	return "", fmt.Errorf("unknown delivery %q (want auto, queue or interrupt)", s)
}

// WithDelivery sets how a message reaches an agent mid-turn (default
// Auto).
func WithDelivery(d Delivery) Option { return func(r *Relay) { r.delivery = d } }

// WithMCPWrapper rewrites each stdio MCP server of session/new and
// session/load (so it runs through swetouch mcp).
func WithMCPWrapper(f func(server map[string]any) map[string]any) Option {
	return func(r *Relay) { r.wrapMCP = f }
}

// NewRelay returns a relay writing to the agent and to the editor.
func NewRelay(toAgent, toEditor io.Writer, opts ...Option) *Relay {
	r := &Relay{toAgent: &lineWriter{w: toAgent}, toEdit: &lineWriter{w: toEditor}, now: time.Now, delivery: Auto,
		turns: map[string]json.RawMessage{}, injected: map[string]string{}, held: map[string][][]byte{},
		queued: map[string][]string{}, cancelled: map[string]bool{}, steers: map[string]steerReq{}, toolCalls: map[string]toolCall{}, requests: map[string]agentRequest{}, terminals: map[string]int{},
		reply: map[string]string{}, heldEnd: map[string][]byte{}}
	for _, o := range opts {
		o(r)
	}
	if rec, ok := r.hub.(Recorder); ok && !r.noRec {
		r.rec = rec
	}
	return r
}

// AgentWriter and EditorWriter are where Pipe must write, so the relay's
// own lines never interleave with relayed ones.
func (r *Relay) AgentWriter() io.Writer  { return r.toAgent }
func (r *Relay) EditorWriter() io.Writer { return r.toEdit }

// lineWriter serialises whole-line writes.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineWriter) line(b []byte) error {
	_, err := l.Write(append(append([]byte(nil), b...), '\n'))
	return err
}

// maxTrafficRaw is the largest message a traffic event holds whole;
// a larger one (a 20 MiB file read) is kept as head, tail and hash, and
// whole only in the --traffic log.
const maxTrafficRaw = 1 << 20

// sender is the actor of a source of traffic: the editor speaks for the
// user, swetouch is the harness.
func sender(from string) event.Actor {
	switch from {
	case "editor":
		return event.User
	case "agent":
		return event.Agent
	}
	return event.Harness
}

// log records a message: into the trajectory (a traffic event) and into
// the traffic log.
func (r *Relay) log(from string, line []byte) {
	if r.rec == nil && r.traffic == nil {
		return
	}
	// scanned once, and a large line only for the log that keeps it whole
	small := len(line) <= maxTrafficRaw
	// a message with invalid UTF-8 is kept as text (its bad bytes become
	// U+FFFD), so every line of the trajectory and the log stays JSON
	valid := (small || r.traffic != nil) && json.Valid(line) && utf8.Valid(line)
	if r.rec != nil {
		ev := event.Event{Kind: event.Traffic, Source: "acp", Actor: sender(from)}
		if small && valid {
			ev.Raw = line
		} else {
			ev.Output = trajectory.NewOutput(string(line))
		}
		r.rec.Record(ev)
	}
	if r.traffic == nil {
		return
	}
	msg := json.RawMessage(line)
	if !valid {
		b, _ := json.Marshal(string(line))
		msg = b
	}
	b, _ := json.Marshal(struct {
		Time    time.Time       `json:"time"`
		From    string          `json:"from"`
		Message json.RawMessage `json:"message"`
	}{r.now().UTC(), from, msg})
	r.traffic.line(b)
}

type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// FromEditor sees a line from the editor to the agent.
func (r *Relay) FromEditor(line []byte) []byte {
	r.log("editor", line)
	e, ok := proxy.Peek(line)
	if !ok {
		return line
	}
	switch {
	case e.IsResponse():
		r.editorAnswered(proxy.IDKey(e.ID), e.Result)
	case e.Method == "session/prompt" && e.IsRequest():
		var p sessionParams
		json.Unmarshal(e.Params, &p)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lastSess = p.SessionID
		if r.busyLocked(p.SessionID) {
			// our injected turn runs: the editor's prompt waits for it
			r.held[p.SessionID] = append(r.held[p.SessionID], append([]byte(nil), line...))
			return nil
		}
		r.turns[p.SessionID] = append(json.RawMessage(nil), e.ID...)
	case (e.Method == "session/new" || e.Method == "session/load") && r.wrapMCP != nil:
		return r.rewriteMCP(line)
	}
	return line
}

// busyLocked reports whether an injected turn runs in the session.
func (r *Relay) busyLocked(sess string) bool {
	for _, s := range r.injected {
		if s == sess {
			return true
		}
	}
	return false
}

// FromAgent sees a line from the agent to the editor.
func (r *Relay) FromAgent(line []byte) []byte {
	r.log("agent", line)
	e, ok := proxy.Peek(line)
	if !ok {
		return line
	}
	switch {
	case e.IsResponse():
		return r.agentAnswered(e, line)
	case e.Method == "session/update":
		r.update(e.Params)
	case e.IsRequest():
		r.agentRequest(e)
	}
	return line
}

// agentAnswered handles a response from the agent: to our own request it
// is swallowed (and an injected turn's end lets held prompts go); to the
// editor's prompt it ends the turn (and queued messages are delivered).
func (r *Relay) agentAnswered(e proxy.Envelope, line []byte) []byte {
	id := proxy.IDKey(e.ID)
	r.mu.Lock()
	if sess, ours := r.injected[id]; ours {
		delete(r.injected, id)
		queued := r.queued[sess]
		delete(r.queued, sess)
		if _, talking := r.heldEnd[sess]; talking {
			// a turn of the conversation: the editor's prompts wait on
			r.mu.Unlock()
			r.nextTurn(sess, queued)
			return nil
		}
		held := r.held[sess]
		delete(r.held, sess)
		r.mu.Unlock()
		if len(queued) > 0 {
			r.inject(sess, queued) // more came during our turn
			r.mu.Lock()
			r.held[sess] = append(held, r.held[sess]...)
			r.mu.Unlock()
			return nil
		}
		for _, h := range held {
			r.FromEditorRelease(h)
		}
		return nil
	}
	if req, ok := r.steers[id]; ok {
		delete(r.steers, id)
		r.mu.Unlock()
		r.steered(req, e)
		return nil
	}
	if strings.HasPrefix(id, "s:"+oursPrefix) {
		r.mu.Unlock()
		return nil // an answer to nothing we still wait for
	}
	var ended string
	for sess, pid := range r.turns {
		if proxy.IDKey(pid) == id {
			ended = sess
			delete(r.turns, sess)
			delete(r.cancelled, sess)
		}
	}
	queued := r.queued[ended]
	if ended != "" {
		delete(r.queued, ended)
	}
	r.mu.Unlock()
	if isInitializeResult(e.Result) {
		r.mu.Lock()
		r.steering = steeringSupported(e.Result)
		r.mu.Unlock()
	}
	r.mu.Lock()
	talking := ended != "" && r.talk != nil && !r.talkDone
	if talking {
		r.heldEnd[ended] = append([]byte(nil), line...)
	}
	r.mu.Unlock()
	if talking {
		// a conversation: the editor's turn ends when it does
		r.nextTurn(ended, queued)
		return nil
	}
	if len(queued) > 0 {
		// the user speaks once the editor has seen the turn end; the
		// turn is ours before the editor can send its next prompt
		id := r.reserve(ended)
		r.toEdit.line(line)
		r.send(id, ended, queued)
		return nil
	}
	return line
}

// nextTurn is what follows a turn of a conversation the relay holds: the
// messages waiting for its end and the user's next message as one turn
// of the relay's own; when the user has ended the conversation and
// nothing waits, the editor's turn ends (its held response goes on) and
// its held prompts go to the agent.
func (r *Relay) nextTurn(sess string, queued []string) {
	r.mu.Lock()
	reply, done := r.reply[sess], r.talkDone
	delete(r.reply, sess)
	r.mu.Unlock()
	texts := queued
	if !done {
		next, end := r.talk(reply)
		if end {
			r.mu.Lock()
			r.talkDone = true
			r.mu.Unlock()
		}
		if next != "" {
			texts = append(texts, next)
		}
	}
	if len(texts) > 0 {
		r.inject(sess, texts)
		return
	}
	r.mu.Lock()
	end := r.heldEnd[sess]
	delete(r.heldEnd, sess)
	held := r.held[sess]
	delete(r.held, sess)
	r.mu.Unlock()
	r.toEdit.line(end)
	for _, h := range held {
		r.FromEditorRelease(h)
	}
}

// FromEditorRelease sends a held editor prompt on to the agent.
func (r *Relay) FromEditorRelease(line []byte) {
	if e, ok := proxy.Peek(line); ok {
		var p sessionParams
		json.Unmarshal(e.Params, &p)
		r.mu.Lock()
		r.turns[p.SessionID] = append(json.RawMessage(nil), e.ID...)
		r.mu.Unlock()
	}
	r.toAgent.line(line)
}

func isInitializeResult(res json.RawMessage) bool {
	var v struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}
	return json.Unmarshal(res, &v) == nil && v.ProtocolVersion != nil
}

func steeringSupported(res json.RawMessage) bool {
	var v struct {
		Meta struct {
			Steering struct {
				Supported bool `json:"supported"`
			} `json:"steering"`
		} `json:"_meta"`
	}
	return json.Unmarshal(res, &v) == nil && v.Meta.Steering.Supported
}

// rel is a path as the hub knows it: relative to the workspace.
func (r *Relay) rel(p string) string {
	if r.root != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(r.root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// rewriteMCP passes session/new and session/load with their stdio MCP
// servers wrapped; anything it cannot read passes as it came.
func (r *Relay) rewriteMCP(line []byte) []byte {
	var msg map[string]any
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	params, _ := msg["params"].(map[string]any)
	servers, _ := params["mcpServers"].([]any)
	if len(servers) == 0 {
		return line
	}
	for i, s := range servers {
		m, ok := s.(map[string]any)
		if !ok {
			continue
		}
		if _, stdio := m["command"]; stdio && (m["type"] == nil || m["type"] == "stdio") {
			servers[i] = r.wrapMCP(m)
		}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return b
}

// WrapMCP is the usual MCP wrapper: the server's command runs behind
// `exe mcp --session SOCK --root ROOT --`.
func WrapMCP(exe, sock, root string) func(map[string]any) map[string]any {
	return func(m map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		args := []any{"mcp", "--session", sock, "--root", root, "--", m["command"]}
		if a, ok := m["args"].([]any); ok {
			args = append(args, a...)
		}
		out["command"], out["args"] = exe, args
		return out
	}
}

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/proxy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/watch"
)

// agentRequest observes what the agent asks of the editor: a file read
// (with its lines) is reported before the editor answers it, so a
// Counter-Edit it fires is what the agent reads; a write is reported once
// the editor has written; a terminal is a command from create to exit.
func (r *Relay) agentRequest(e proxy.Envelope) {
	if r.hub == nil {
		return
	}
	var p struct {
		SessionID string   `json:"sessionId"`
		Path      string   `json:"path"`
		Line      int      `json:"line"`
		Limit     int      `json:"limit"`
		Command   string   `json:"command"`
		Args      []string `json:"args"`
		Cwd       string   `json:"cwd"`
		TermID    string   `json:"terminalId"`
	}
	if json.Unmarshal(e.Params, &p) != nil {
		return
	}
	req := agentRequest{method: e.Method, session: p.SessionID, path: p.Path}
	switch e.Method {
	case "fs/read_text_file":
		sc := event.FileScope(r.rel(p.Path))
		if p.Line > 0 || p.Limit > 0 {
			start := max(p.Line, 1)
			end := start + p.Limit - 1
			if p.Limit <= 0 {
				end = lineCount(p.Path)
			}
			sc = event.LineScope(r.rel(p.Path), start, max(end, start))
		}
		r.observe(p.SessionID, event.Event{Kind: event.Read, Source: "acp", Tool: e.Method, Scopes: []event.Scope{sc}})
	case "fs/write_text_file":
		// the file as it is before the editor writes, and what the agent
		// asks for: a write the disk never sees (the editor kept it in a
		// buffer) is still an edit with its lines
		var w struct {
			Content *string `json:"content"`
		}
		json.Unmarshal(e.Params, &w)
		req.content = w.Content
		if b, err := os.ReadFile(r.abs(p.Path)); err == nil {
			before := string(b)
			req.before = &before
		}
	case "terminal/create":
		cmd := p.Command
		if len(p.Args) > 0 {
			// an argv, not a script: quote it so the classifier reads
			// the words the agent gave
			words := []string{p.Command}
			for _, a := range p.Args {
				q, err := syntax.Quote(a, syntax.LangBash)
				if err != nil {
					q = a
				}
				words = append(words, q)
			}
			cmd = strings.Join(words, " ")
		}
		cwd := p.Cwd
		if cwd == "" {
			cwd = r.root
		}
		id, err := r.hub.Begin(session.Begin{Command: cmd, Cwd: cwd, Source: "acp"})
		if err != nil {
			return
		}
		req.begin = id
	case "terminal/wait_for_exit", "terminal/release", "terminal/output":
		req.path = p.TermID
	default:
		return
	}
	r.mu.Lock()
	r.requests[proxy.IDKey(e.ID)] = req
	r.mu.Unlock()
}

// editorAnswered completes what agentRequest began, when the editor
// answers the agent.
func (r *Relay) editorAnswered(id string, result json.RawMessage) {
	r.mu.Lock()
	req, ok := r.requests[id]
	delete(r.requests, id)
	r.mu.Unlock()
	if !ok || r.hub == nil {
		return
	}
	switch req.method {
	case "fs/write_text_file":
		// the editor wrote the file: the watcher has the changed lines
		msgs, _ := r.hub.Sync("acp")
		r.deliver(req.session, msgs)
		// the disk as it was before: the editor kept the write in a buffer
		// (a file the editor changed otherwise, formatting it on save, is
		// the watcher's)
		b, err := os.ReadFile(r.abs(req.path))
		unchanged := req.before == nil && os.IsNotExist(err) || req.before != nil && err == nil && string(b) == *req.before
		if req.content != nil && unchanged {
			r.unseenWrite(req)
		}
	case "terminal/create":
		var res struct {
			TerminalID string `json:"terminalId"`
		}
		if json.Unmarshal(result, &res) == nil && res.TerminalID != "" {
			r.mu.Lock()
			r.terminals[res.TerminalID] = req.begin
			r.mu.Unlock()
			return
		}
		r.endTerminal(req.session, req.begin, session.End{Exit: -1, Unseen: true})
	case "terminal/wait_for_exit", "terminal/release":
		r.mu.Lock()
		begin, open := r.terminals[req.path]
		delete(r.terminals, req.path)
		r.mu.Unlock()
		if !open {
			return
		}
		var res struct {
			ExitCode *int `json:"exitCode"`
		}
		// the terminal's output goes to the editor, not through us
		end := session.End{Exit: -1, Unseen: true}
		if json.Unmarshal(result, &res) == nil && res.ExitCode != nil {
			end.Exit = *res.ExitCode
		}
		r.endTerminal(req.session, begin, end)
	}
}

// unseenWrite reports a write that did not reach the disk, with the lines
// it changes against the file as it was.
func (r *Relay) unseenWrite(req agentRequest) {
	rel := r.rel(req.path)
	if *req.content == "" && req.before == nil || req.before != nil && *req.before == *req.content {
		return
	}
	c := watch.Compare(rel, req.before, req.content)
	ev := event.Event{Kind: event.Edit, Source: "acp", Tool: "fs/write_text_file", Diff: c.Diff, Note: "not on disk"}
	for _, rg := range c.Ranges {
		ev.Scopes = append(ev.Scopes, event.LineScope(rel, rg.Start, rg.End))
	}
	if len(ev.Scopes) == 0 {
		ev.Scopes = []event.Scope{event.FileScope(rel)}
	}
	r.observe(req.session, ev)
}

func (r *Relay) endTerminal(sess string, begin int, end session.End) {
	msgs, _ := r.hub.End(begin, end)
	r.deliver(sess, msgs)
}

// update observes the agent's tool calls as they complete: reads with the
// lines the call names, edits made by the agent itself (taken from the
// watcher, with their lines), commands it ran itself.
func (r *Relay) update(params json.RawMessage) {
	if r.hub == nil && r.talk == nil {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			Kind string `json:"sessionUpdate"`
			ID   string `json:"toolCallId"`
			// a message chunk's content block (a tool call's is a list)
			Content json.RawMessage `json:"content"`
			toolCall
		} `json:"update"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	u := p.Update
	if r.talk != nil {
		// the agent's reply to the user: its text since its last tool call
		r.mu.Lock()
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		switch {
		case u.Kind == "agent_message_chunk" && json.Unmarshal(u.Content, &block) == nil && block.Type == "text":
			r.reply[p.SessionID] += block.Text
		case u.Kind == "tool_call":
			r.reply[p.SessionID] = ""
		}
		r.mu.Unlock()
	}
	if r.hub == nil {
		return
	}
	if u.Kind != "tool_call" && u.Kind != "tool_call_update" {
		return
	}
	// an update names only what changed (Claude's adapter sends the input
	// and locations in one, the completion in another): the call is the
	// sum of its updates
	key := p.SessionID + "\x00" + u.ID
	r.mu.Lock()
	call := r.toolCalls[key]
	call.merge(u.toolCall)
	done := call.Status == "completed" || call.Status == "failed"
	if done {
		delete(r.toolCalls, key)
	} else {
		r.toolCalls[key] = call
	}
	r.mu.Unlock()
	if call.Status != "completed" {
		return
	}
	switch call.ToolKind {
	case "read":
		if sc, ok := r.readScope(call.RawInput, call.Locations); ok {
			r.observe(p.SessionID, event.Event{Kind: event.Read, Source: "acp", Tool: call.Title, Scopes: []event.Scope{sc}})
		}
	case "edit", "delete", "move":
		msgs, _ := r.hub.Sync("acp")
		r.deliver(p.SessionID, msgs)
	case "execute":
		cmd, _ := call.RawInput["command"].(string)
		if cmd == "" {
			return
		}
		id, err := r.hub.Begin(session.Begin{Command: cmd, Cwd: r.root, Source: "acp"})
		if err == nil {
			r.endTerminal(p.SessionID, id, session.End{Exit: 0})
		}
	}
}

// toolCall is what the updates of one tool call have said so far.
type toolCall struct {
	ToolKind  string         `json:"kind"`
	Status    string         `json:"status"`
	Title     string         `json:"title"`
	Locations []location     `json:"locations"`
	RawInput  map[string]any `json:"rawInput"`
}

// merge takes the fields an update sets.
func (c *toolCall) merge(u toolCall) {
	if u.ToolKind != "" {
		c.ToolKind = u.ToolKind
	}
	if u.Status != "" {
		c.Status = u.Status
	}
	if u.Title != "" {
		c.Title = u.Title
	}
	if u.Locations != nil {
		c.Locations = u.Locations
	}
	if len(u.RawInput) > 0 {
		c.RawInput = u.RawInput
	}
}

type location struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

// readScope is what a read tool call read: Claude's Read input
// (file_path, offset, limit; 2,000 lines by default), a path with
// line/limit, or the call's first location (a line where given, to the
// end of the file, since a location has no range).
func (r *Relay) readScope(in map[string]any, locs []location) (event.Scope, bool) {
	path, _ := in["file_path"].(string)
	if path == "" {
		path, _ = in["path"].(string)
	}
	start, limit := num(in["offset"]), num(in["limit"])
	if start == 0 {
		start = num(in["line"])
	}
	if path == "" && len(locs) > 0 {
		path, start = locs[0].Path, locs[0].Line
	}
	if path == "" {
		return event.Scope{}, false
	}
	if start == 0 && limit == 0 {
		return event.FileScope(r.rel(path)), true
	}
	start = max(start, 1)
	end := lineCount(r.abs(path))
	if limit > 0 {
		end = start + limit - 1
	} else if _, claude := in["file_path"]; claude {
		end = start + 2000 - 1
	}
	return event.LineScope(r.rel(path), start, max(end, start)), true
}

func (r *Relay) abs(p string) string {
	if filepath.IsAbs(p) || r.root == "" {
		return p
	}
	return filepath.Join(r.root, p)
}

// observe reports a native action and delivers the messages it brings.
func (r *Relay) observe(sess string, ev event.Event) {
	ev.Actor = event.Agent
	if both, ok := r.hub.(observeSyncer); ok {
		msgs, _ := both.ObserveSync(ev, "acp")
		r.deliver(sess, msgs)
		return
	}
	if _, err := r.hub.Observe(ev); err != nil {
		return
	}
	msgs, _ := r.hub.Sync("acp")
	r.deliver(sess, msgs)
}

// observeSyncer observes and syncs in one round trip (the socket client).
type observeSyncer interface {
	ObserveSync(ev event.Event, channel string) ([]session.Message, error)
}

func num(v any) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return 0
}

// lineCount is the number of lines of a file (1 when it cannot be read).
func lineCount(path string) int {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return 1
	}
	n := strings.Count(string(b), "\n")
	if !strings.HasSuffix(string(b), "\n") {
		n++
	}
	return n
}

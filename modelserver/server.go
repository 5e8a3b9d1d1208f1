package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// request is an incoming model request reduced to what a script needs.
type request struct {
	provider   string // anthropic, openai, gemini
	model      string
	body       []byte
	stream     bool
	tools      []string             // the tools the agent offers
	lastResult string               // the latest tool result's text
	custom     map[string]bool      // OpenAI freeform tools, called with a string
	namespaced map[string][2]string // OpenAI namespaced tools: offered name → namespace, name
	// rounds is how many tool-call answers the conversation's history
	// holds, counted from its shape (the fallback when it carries none
	// of this server's call ids)
	rounds int
	// fence is a text-action agent's block label, for a request that
	// offers no tools (text.go); "" for one that calls tools
	fence string
}

// Exchange is one request and the answer it got, as recorded.
type Exchange struct {
	Seq      int    `json:"seq"`
	Provider string `json:"provider"`
	Path     string `json:"path"`
	Turn     int    `json:"turn"` // the script turn served; -1 for the final text
	// Conversation numbers the conversation from 1 in the order they
	// started; 0 for a side request (no tools) or one that names none
	Conversation int             `json:"conversation,omitempty"`
	Request      json.RawMessage `json:"request"`
	Response     string          `json:"response"`
}

// Server plays a script to whichever API the agent speaks, to any number
// of conversations at once: each plays the script from its start. A
// conversation's place in the script is read from its own history (the
// call ids this server gave it name the conversation and the turn), so
// concurrent trials against one server do not take each other's turns.
type Server struct {
	script *Script
	log    io.Writer
	mu     sync.Mutex
	convs  []conversation // by number - 1
	// unnamed is the most turns served to a conversation whose history
	// carried none of this server's ids
	unnamed int
	ex      []Exchange
	sink    io.Writer
}

// conversation is what the server knows of one conversation.
type conversation struct {
	served int  // script turns served
	warned bool // told that it ran past the script
}

// Option configures a Server.
type Option func(*Server)

// WithLog makes the server say on w when a conversation starts and when
// one runs past the end of its script.
func WithLog(w io.Writer) Option { return func(s *Server) { s.log = w } }

// NewServer returns a server playing s; every exchange is also written to
// sink (JSONL) when it is not nil.
func NewServer(s *Script, sink io.Writer, opts ...Option) *Server {
	srv := &Server{script: s, sink: sink}
	for _, o := range opts {
		o(srv)
	}
	return srv
}

// Exchanges returns what the server received and answered so far.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.ex...)
}

// ServeHTTP routes by path: /v1/messages (Anthropic), /v1/responses and
// /responses (OpenAI), …:streamGenerateContent and …:generateContent
// (Gemini).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req *request
	switch p := r.URL.Path; {
	case strings.HasSuffix(p, "/messages"):
		req, err = parseAnthropic(body)
	case strings.HasSuffix(p, "/chat/completions"):
		var tools bool
		if req, tools, err = parseChat(body); err == nil && !tools {
			if req = parseTextChat(body); req == nil {
				s.chat(w, r.URL.Path, body)
				return
			}
		}
	case strings.HasSuffix(p, "/responses"):
		req, err = parseOpenAI(body)
	case strings.Contains(p, ":streamGenerateContent"), strings.Contains(p, ":generateContent"):
		req, err = parseGemini(body, p)
		if req != nil {
			req.stream = strings.Contains(p, ":stream")
		}
	default:
		http.Error(w, fmt.Sprintf("swetouch model: no API at %s", p), http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, "swetouch model: "+err.Error(), http.StatusBadRequest)
		return
	}
	turn, at := s.pick(req)
	var out strings.Builder
	switch req.provider {
	case "anthropic":
		writeAnthropic(&out, req, turn, at)
	case "openai":
		writeOpenAI(&out, req, turn, at)
	case "gemini":
		writeGemini(&out, req, turn, at)
	case "chat":
		writeChat(&out, req, turn, at)
	}
	if req.stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	io.WriteString(w, out.String())
	s.record(Exchange{Provider: req.provider, Path: r.URL.Path, Turn: at.turn, Conversation: at.conv, Request: rawJSON(body), Response: out.String()})
}

// place is where an answer sits: its conversation and script turn (-1
// for the final text); the call ids written into it carry both.
type place struct{ conv, turn int }

// callID is the id of a scripted call: prefix_swetouch_CONV_TURN_K.
func (p place) callID(prefix string, k int) string {
	return fmt.Sprintf("%s_swetouch_%d_%d_%d", prefix, p.conv, p.turn, k)
}

// ourCall finds this server's call ids in a request.
var ourCall = regexp.MustCompile(`_swetouch_(\d+)_(\d+)_\d+`)

// locate reads a request's conversation and how many script turns its
// history holds: from the ids of this server's calls in it, else from
// the history's shape (then the conversation is unknown, 0); and then
// the text turns the history already holds after those, found by their
// text: the reply that ended an agent's turn is in the history of the
// next, when the agent resumes its session for the user's next message.
func (s *Server) locate(req *request) (conv, served int) {
	served = req.rounds
	for _, m := range ourCall.FindAllSubmatch(req.body, -1) {
		c, _ := strconv.Atoi(string(m[1]))
		t, _ := strconv.Atoi(string(m[2]))
		conv, served = c, max(served, t+1)
	}
	for served < len(s.script.Turns) {
		t := s.script.Turns[served]
		if len(t.Calls) > 0 || !bytes.Contains(req.body, jsonText(t.Text)) {
			break
		}
		served++
	}
	return conv, served
}

// jsonText is s as it appears inside a JSON string (no HTML escaping: the
// agents do not escape <, > and &).
func jsonText(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte(`"`))[1:]
}

// pick chooses the answer: the conversation's next turn if the request
// offers tools and meets the turn's condition, else the final text. A
// request with tools and no history starts a conversation.
func (s *Server) pick(req *request) (Turn, place) {
	final := Turn{Text: s.script.Final}
	if len(req.tools) == 0 && req.fence == "" {
		return final, place{turn: -1}
	}
	conv, served := s.locate(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if conv == 0 && served == 0 {
		s.convs = append(s.convs, conversation{})
		conv = len(s.convs)
		if s.log != nil {
			fmt.Fprintf(s.log, "swetouch model: conversation %d started (%s, model %q)\n", conv, req.provider, req.model)
		}
	}
	var c *conversation
	if conv >= 1 && conv <= len(s.convs) {
		c = &s.convs[conv-1]
	}
	if served >= len(s.script.Turns) {
		if c != nil && !c.warned && s.log != nil {
			c.warned = true
			fmt.Fprintf(s.log, "swetouch model: warning: conversation %d asked for turn %d of a %d-turn script: answering with the final text %q\n",
				conv, served+1, len(s.script.Turns), s.script.Final)
		}
		return final, place{conv: conv, turn: -1}
	}
	t := s.script.Turns[served]
	if !t.When.holds(req) {
		return final, place{conv: conv, turn: -1}
	}
	if c != nil {
		c.served = max(c.served, served+1)
	} else {
		s.unnamed = max(s.unnamed, served+1)
	}
	return t, place{conv: conv, turn: served}
}

func (s *Server) record(e Exchange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Seq = len(s.ex) + 1
	s.ex = append(s.ex, e)
	if s.sink != nil {
		b, _ := json.Marshal(e)
		s.sink.Write(append(b, '\n'))
	}
}

func rawJSON(b []byte) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

// Turns reports the most script turns any one conversation has been
// served.
func (s *Server) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.unnamed
	for _, c := range s.convs {
		n = max(n, c.served)
	}
	return n
}

// Conversations reports how many conversations have started.
func (s *Server) Conversations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.convs)
}

// chat answers an OpenAI chat-completions request (a simulated user's,
// not an agent's): the first text turn whose condition the request
// meets, else the final text. Each call stands alone, so nothing is
// consumed: a script for a user says in its conditions which call gets
// which words.
func (s *Server) chat(w http.ResponseWriter, path string, body []byte) {
	var b struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		http.Error(w, "swetouch model: chat request: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := &request{provider: "chat", model: b.Model, body: body}
	text, turn := s.script.Final, -1
	for i, t := range s.script.Turns {
		if t.Text != "" && t.When.holds(req) {
			text, turn = t.Text, i
			break
		}
	}
	out, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl_swetouch_%d", turn), "object": "chat.completion", "model": b.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
	s.record(Exchange{Provider: "chat", Path: path, Turn: turn, Request: rawJSON(body), Response: string(out)})
}

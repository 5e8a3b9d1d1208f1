package model

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// request is an incoming model request reduced to what a script needs.
type request struct {
	provider   string // anthropic, openai, gemini
	model      string
	body       []byte
	stream     bool
	tools      []string        // the tools the agent offers
	lastResult string          // the latest tool result's text
	custom     map[string]bool // OpenAI freeform tools, called with a string
}

// Exchange is one request and the answer it got, as recorded.
type Exchange struct {
	Seq      int             `json:"seq"`
	Provider string          `json:"provider"`
	Path     string          `json:"path"`
	Turn     int             `json:"turn"` // the script turn served; -1 for the final text
	Request  json.RawMessage `json:"request"`
	Response string          `json:"response"`
}

// Server plays a script to whichever API the agent speaks.
type Server struct {
	script *Script
	mu     sync.Mutex
	next   int
	ids    int
	log    []Exchange
	sink   io.Writer
}

// NewServer returns a server playing s; every exchange is also written to
// sink (JSONL) when it is not nil.
func NewServer(s *Script, sink io.Writer) *Server { return &Server{script: s, sink: sink} }

// Exchanges returns what the server received and answered so far.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.log...)
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
	turn, idx := s.pick(req)
	ids := s.reserveIDs(len(turn.Calls) + 1)
	var out strings.Builder
	switch req.provider {
	case "anthropic":
		writeAnthropic(&out, req, turn, ids)
	case "openai":
		writeOpenAI(&out, req, turn, ids)
	case "gemini":
		writeGemini(&out, req, turn)
	}
	if req.stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	io.WriteString(w, out.String())
	s.record(Exchange{Provider: req.provider, Path: r.URL.Path, Turn: idx, Request: rawJSON(body), Response: out.String()})
}

// pick chooses the answer: the next turn if the request offers tools and
// meets the turn's condition, else the final text.
func (s *Server) pick(req *request) (Turn, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(req.tools) > 0 && s.next < len(s.script.Turns) {
		t := s.script.Turns[s.next]
		if t.When.holds(req) {
			s.next++
			return t, s.next - 1
		}
	}
	return Turn{Text: s.script.Final}, -1
}

func (s *Server) reserveIDs(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.ids + 1
	s.ids += n
	return first
}

func (s *Server) record(e Exchange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Seq = len(s.log) + 1
	s.log = append(s.log, e)
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

// Turns reports how many script turns have been served.
func (s *Server) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

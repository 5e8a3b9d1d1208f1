package modelserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
)

// Entry is one recorded exchange with a real provider.
type Entry struct {
	Seq         int             `json:"seq"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Query       string          `json:"query,omitempty"`
	Request     json.RawMessage `json:"request"`
	Status      int             `json:"status"`
	ContentType string          `json:"content_type"`
	Response    string          `json:"response"`
}

// Recorder passes requests through to a real provider and appends each
// exchange to a cassette. Answers are buffered whole before they are
// passed on (a stream arrives at once).
type Recorder struct {
	// Admit, when set, is asked before each model call is passed on; a
	// call it refuses (past a trial's step budget) is answered 429 and
	// never reaches the provider.
	Admit func() bool
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	seq   int
	out   io.Writer
	usage map[string]Usage
}

// Usage is what the recorded calls cost so far, by model.
func (rec *Recorder) Usage() map[string]Usage {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := make(map[string]Usage, len(rec.usage))
	for m, u := range rec.usage {
		out[m] = u
	}
	return out
}

// NewRecorder records exchanges with upstream to out (JSONL).
func NewRecorder(upstream *url.URL, out io.Writer) *Recorder {
	rec := &Recorder{out: out, usage: map[string]Usage{}}
	rec.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.Out.Host = upstream.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Del("Content-Encoding") // the transport already decoded it
			req := resp.Request
			reqBody, _ := req.Context().Value(bodyKey{}).([]byte)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.seq++
			e := Entry{Seq: rec.seq, Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
				Request: rawJSON(reqBody), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Response: string(body)}
			m, u := CallUsage(e)
			rec.usage[m] = rec.usage[m].Add(u)
			b, _ := json.Marshal(e)
			_, err = rec.out.Write(append(b, '\n'))
			return err
		},
	}
	return rec
}

type bodyKey struct{}

func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if rec.Admit != nil && !rec.Admit() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"type":"step_limit","message":"swetouch: the trial's step limit is reached"}}`)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r = r.WithContext(contextWith(r, body))
	rec.proxy.ServeHTTP(w, r)
}

// Cassette serves recorded answers: the n-th request to a path gets the
// n-th answer recorded for that path, so a closed agent's session replays
// without the provider.
type Cassette struct {
	mu     sync.Mutex
	byPath map[string][]Entry
	served map[string]int
	Misses int // requests with no recorded answer left
}

// LoadCassette reads a cassette file; a bad line is an error naming it.
func LoadCassette(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &Cassette{byPath: map[string][]Entry{}, served: map[string]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		c.byPath[e.Path] = append(c.byPath[e.Path], e)
	}
	return c, sc.Err()
}

func (c *Cassette) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	c.mu.Lock()
	i := c.served[r.URL.Path]
	entries := c.byPath[r.URL.Path]
	if i >= len(entries) {
		c.Misses++
		c.mu.Unlock()
		http.Error(w, fmt.Sprintf("swetouch model: the cassette has no answer %d for %s", i+1, r.URL.Path), http.StatusGone)
		return
	}
	c.served[r.URL.Path] = i + 1
	e := entries[i]
	c.mu.Unlock()
	if e.ContentType != "" {
		w.Header().Set("Content-Type", e.ContentType)
	}
	w.WriteHeader(e.Status)
	io.WriteString(w, e.Response)
}

func contextWith(r *http.Request, body []byte) context.Context {
	return context.WithValue(r.Context(), bodyKey{}, body)
}

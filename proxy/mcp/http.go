package mcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// HTTPRelay is the relay in front of a streamable HTTP MCP server. It
// forwards every request (POST, the GET stream, DELETE) with its headers
// — Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID — and rewrites
// only the answer to a tools/call that brings a user message, whether the
// server answers with JSON or with an event stream.
type HTTPRelay struct {
	relay *Relay
	proxy *httputil.ReverseProxy
	// AllowOrigin accepts a browser Origin besides localhost ones; the
	// relay, like any local MCP server, refuses others (DNS rebinding).
	AllowOrigin func(string) bool
}

// NewHTTPRelay relays to upstream through r.
func NewHTTPRelay(upstream *url.URL, r *Relay) *HTTPRelay {
	h := &HTTPRelay{relay: r}
	h.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.Out.Host = upstream.Host
		},
		FlushInterval: -1, // event streams pass as they come
		ModifyResponse: func(resp *http.Response) error {
			scope := resp.Request.Header.Get("Mcp-Session-Id")
			fromServer := func(line []byte) []byte { return r.FromServerIn(scope, line) }
			ct := resp.Header.Get("Content-Type")
			switch {
			case strings.HasPrefix(ct, "text/event-stream"):
				resp.Body = sseRewriter(resp.Body, fromServer)
				resp.Header.Del("Content-Length")
			case strings.HasPrefix(ct, "application/json"):
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				b = fromServer(bytes.TrimSpace(b))
				resp.Body = io.NopCloser(bytes.NewReader(b))
				resp.ContentLength = int64(len(b))
				resp.Header.Set("Content-Length", fmt.Sprint(len(b)))
			}
			return nil
		},
	}
	return h
}

func (h *HTTPRelay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if o := req.Header.Get("Origin"); o != "" && !localOrigin(o) && (h.AllowOrigin == nil || !h.AllowOrigin(o)) {
		http.Error(w, "swetouch mcp: origin not allowed", http.StatusForbidden)
		return
	}
	if req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.relay.FromClientIn(req.Header.Get("Mcp-Session-Id"), bytes.TrimSpace(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	h.proxy.ServeHTTP(w, req)
}

func localOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// sseRewriter passes an event stream through, handing each single-line
// data field (a JSON-RPC message) to fn.
func sseRewriter(body io.ReadCloser, fn func([]byte) []byte) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		r := bufio.NewReaderSize(body, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					msg := bytes.TrimRight(data, "\r\n")
					if out := fn(msg); !bytes.Equal(out, msg) {
						line = append(append([]byte("data: "), out...), '\n')
					}
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

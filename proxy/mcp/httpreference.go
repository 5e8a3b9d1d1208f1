package mcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// The HTTP relay's reference: net/http and httputil.ReverseProxy in
// place of the hand-written HTTP/1.1 framing of httprelay.go and
// httphead.go, chosen by SWETOUCH_REFERENCE=1 (fastjson.ReferenceEnv,
// the switch that also sends the JSON to encoding/json). It sees the
// same messages (a POST's body before it goes on, a JSON result held
// whole, an event stream line by line) through the same Relay, so a test
// that passes with the byte relay and fails here, or the other way, is a
// framing bug of one of them. It costs a second HTTP stack per call
// (+190 µs on this project's machines when it was the relay).

// referenceOn reports whether SWETOUCH_REFERENCE=1.
func referenceOn() bool { return os.Getenv(fastjson.ReferenceEnv) == "1" }

// serveReference serves l as the byte relay does, through net/http.
func (s *HTTPRelay) serveReference(l net.Listener) error {
	up := &url.URL{Scheme: "http", Host: s.upstream}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Host = s.host
		},
		FlushInterval:  -1, // event streams pass as they come
		ModifyResponse: s.referenceResponse,
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if o := req.Header.Get("Origin"); o != "" && !localOrigin(o) && (s.AllowOrigin == nil || !s.AllowOrigin(o)) {
			http.Error(w, "swetouch mcp: origin not allowed", http.StatusForbidden)
			return
		}
		if req.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if len(body) > 0 {
				s.relay.FromClientIn(req.Header.Get("Mcp-Session-Id"), bytes.TrimSpace(body))
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, req)
	})}
	if err := srv.Serve(l); !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// referenceResponse passes a tools/call result through the relay: a JSON
// body whole, with its new length; an event stream line by line.
func (s *HTTPRelay) referenceResponse(resp *http.Response) error {
	scope := resp.Request.Header.Get("Mcp-Session-Id")
	ct := resp.Header.Get("Content-Type")
	switch {
	case hasPrefixFold(ct, "text/event-stream"):
		resp.Body = referenceEvents(resp.Body, func(line []byte) []byte { return s.relay.FromServerIn(scope, line) })
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	case hasPrefixFold(ct, "application/json"):
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if err != nil {
			return err
		}
		if out := s.relay.FromServerIn(scope, bytes.TrimSpace(b)); !bytes.Equal(out, bytes.TrimSpace(b)) {
			b = out
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		resp.Header.Del("Transfer-Encoding")
		resp.TransferEncoding = nil
	}
	return nil
}

// referenceEvents is an event stream's body with each data line through
// fn (sseLines, as the byte relay passes it).
func referenceEvents(body io.ReadCloser, fn func([]byte) []byte) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		lines := sseLines{fn: fn}
		buf := make([]byte, 64<<10)
		for {
			n, err := body.Read(buf)
			if out := lines.feed(buf[:n]); len(out) > 0 {
				if _, werr := pw.Write(out); werr != nil {
					return
				}
			}
			if err != nil {
				pw.Write(lines.rest())
				if err == io.EOF {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

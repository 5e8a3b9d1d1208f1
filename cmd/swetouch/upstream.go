package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/internal/jsonerr"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/run"
)

// CassetteFile is a run folder's recording of the agent's model traffic
// (run --model-upstream), which replays the run without the provider.
const CassetteFile = "model-cassette.jsonl"

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	Output      float64 `json:"output"`
}

// upstreamFlags are the agent's real provider and the prices of its
// models.
type upstreamFlags struct{ url, prices string }

func (u *upstreamFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&u.url, "model-upstream", "", "the agent's real model provider (e.g. https://api.anthropic.com, or a swetouch model serve URL): a recorder in between counts every call's tokens and writes "+CassetteFile+" to the run folder, so the run also replays")
	c.Flags().StringVar(&u.prices, "prices", "", `with --model-upstream: model prices, {"MODEL": {"input": USD per Mtok, "cached_input": …, "output": …}}, for the cost`)
}

// recording is a started recorder in front of the upstream.
type recording struct {
	url    string
	rec    *modelserver.Recorder
	prices map[string]Price
	file   *os.File
	srv    *http.Server
}

// check reads the flags: the upstream and the prices (bad input is
// exit 2, before anything runs).
func (u upstreamFlags) check() (map[string]Price, error) {
	up, err := neturl.Parse(u.url)
	if err != nil || up.Host == "" || (up.Scheme != "http" && up.Scheme != "https") {
		return nil, badInput("--model-upstream: want an http(s) URL, got %q", u.url)
	}
	var prices map[string]Price
	if u.prices != "" {
		b, err := os.ReadFile(u.prices)
		if err != nil {
			return nil, badInput("--prices: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&prices); err != nil {
			return nil, badInput("%v", jsonerr.Locate(u.prices, b, 0, "", err))
		}
	}
	return prices, nil
}

// start checks the flags and starts a recorder writing into dir (nil
// when no upstream is given).
func (u upstreamFlags) start(dir string, steps *run.StepBudget) (*recording, error) {
	if u.url == "" {
		if u.prices != "" {
			return nil, badInput("--prices needs --model-upstream")
		}
		return nil, nil
	}
	prices, err := u.check()
	if err != nil {
		return nil, err
	}
	up, _ := neturl.Parse(u.url)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, CassetteFile))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &recording{rec: modelserver.NewRecorder(up, f), prices: prices, file: f}
	if steps != nil {
		r.rec.Admit = steps.Call // the trial's step limit, counted here
	}
	r.srv = &http.Server{Handler: r.rec}
	go r.srv.Serve(ln)
	r.url = "http://" + ln.Addr().String()
	return r, nil
}

// URL is the recorder's, for the agent.
func (r *recording) URL() string { return r.url }

// Usage is what the recorded calls cost.
func (r *recording) Usage() *result.ModelUsage {
	by := r.rec.Usage()
	mu := &result.ModelUsage{ByModel: map[string]result.Tokens{}, Cassette: CassetteFile}
	cost, known := 0.0, true
	names := make([]string, 0, len(by))
	for m := range by {
		names = append(names, m)
	}
	slices.Sort(names)
	for _, m := range names {
		t := by[m]
		mu.Tokens = mu.Tokens.Add(t)
		mu.ByModel[m] = t
		p, ok := r.prices[m]
		if !ok {
			p, ok = r.prices[strings.TrimPrefix(m, "models/")]
		}
		if !ok {
			known = false
			continue
		}
		cost += (float64(t.Input-t.Cached)*p.Input + float64(t.Cached)*p.CachedInput + float64(t.Output)*p.Output) / 1e6
	}
	if known && len(by) > 0 {
		mu.CostUSD = &cost
	}
	return mu
}

// Close stops the recorder and ends its cassette.
func (r *recording) Close() error {
	r.srv.Close()
	return r.file.Close()
}

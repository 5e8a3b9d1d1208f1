package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swetouch/swetouch/author"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/trajectory"
)

// runModel is the model a run's agent called, for the paper's support
// (runs of one model count once): the models result.json's usage names,
// else the model an imported trajectory's header names (mini-swe-agent's
// "mini-swe-agent VERSION MODEL"), else the agent's name, else "".
func runModel(res *result.Run, h trajectory.Header) string {
	if res != nil && res.ModelUsage != nil && len(res.ModelUsage.ByModel) > 0 {
		var ms []string
		for m := range res.ModelUsage.ByModel {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		return strings.Join(ms, "+")
	}
	if f := strings.Fields(h.Agent); len(f) == 3 && f[0] == "mini-swe-agent" {
		return f[2]
	}
	if res != nil {
		return res.AgentName
	}
	return ""
}

// trialRun is a trial folder's run for mining: its trajectory, its model
// and its final diff.
func trialRun(dir string, res *result.Run, tr *trajectory.Trajectory) author.Run {
	r := author.Run{Label: dir, Events: tr.Events, Model: runModel(res, tr.Header)}
	if b, err := os.ReadFile(filepath.Join(dir, "final.diff")); err == nil {
		r.FinalDiff = string(b)
	}
	return r
}

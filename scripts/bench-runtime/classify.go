package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/shell"
)

// classifyPart times classifying the dev corpus's commands (one session
// per run, as an import does) against parsing the same commands alone,
// round by round in turn: the ratio of the rates is the target.
func classifyPart(res *results, corpus string) error {
	files, _ := filepath.Glob(filepath.Join(corpus, "trajectories", "gemini*", "*.traj.json"))
	if len(files) == 0 {
		res.say("classify: not measured (no corpus at %s; give -corpus)", corpus)
		res.notMeasured("no corpus at "+corpus, "classification rate / parse floor")
		return nil
	}
	var runs [][]string
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		tr, err := replay.ImportMiniSWEAgent(data, f, replay.ImportOptions{})
		if err != nil {
			return err
		}
		var cmds []string
		for _, a := range replay.Actions(tr) {
			if a.Command != "" {
				cmds = append(cmds, a.Command)
			}
		}
		runs, total = append(runs, cmds), total+len(cmds)
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	parse := func() {
		for _, cmds := range runs {
			for _, c := range cmds {
				p.Parse(strings.NewReader(c), "")
			}
		}
	}
	classify := func() {
		for _, cmds := range runs {
			s := shell.NewSession()
			for _, c := range cmds {
				s.Classify(c)
			}
		}
	}
	const rounds = 31
	var tp, tc []time.Duration
	for range rounds {
		t0 := time.Now()
		parse()
		t1 := time.Now()
		classify()
		tp, tc = append(tp, t1.Sub(t0)), append(tc, time.Since(t1))
	}
	mp, mc := median(tp), median(tc)
	rate := func(d time.Duration) float64 { return float64(total) / d.Seconds() }
	ratio := float64(mp) / float64(mc)
	res.say("classify %d corpus commands  %.0f commands/s; parsing them alone %.0f/s; %.2f× the parse floor, %d rounds in turn", total, rate(mc), rate(mp), ratio, rounds)
	res.target(figure{Target: "classification rate / parse floor", Value: ratio, Unit: "×", Floor: 1, FloorIs: "parse alone", Budget: 0.9, AtLeast: true, Runs: rounds})
	return nil
}

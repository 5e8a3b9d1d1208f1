package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/analyze"
	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/user"
)

// analyzeOpts are analyze's flags.
type analyzeOpts struct {
	judgeURL, judgeModel, second, adjudicator string
	cassette, out                             string
	window                                    int
	asJSON                                    bool
}

func analyzeCmd() *cobra.Command {
	var o analyzeOpts
	c := &cobra.Command{
		Use:   "analyze RUNS... [--judge-model-url URL --judge-model NAME | --cassette FILE] [--out DIR] [--json]",
		Short: "SWE-Touch's failure analysis: the seven failure labels (two labellers and an adjudicator), response modes by window and their transitions, post-edit reads/edits/tests, and Spearman ρ of revising the edit against Δ",
		Long: "Labels each run that failed under a condition after a Counter-Edit landed, on a task the agent's vanilla\n" +
			"runs mostly solved, with one of the paper's seven failure labels: two labellers, and an adjudicator\n" +
			"where they disagree, all models behind an OpenAI-compatible chat-completions endpoint\n" +
			"(--judge-model-url; key $SWETOUCH_JUDGE_API_KEY). Every call is recorded in the cassette\n" +
			"(--cassette, default OUT/analysis-cassette.jsonl); without --judge-model-url a --cassette is replayed,\n" +
			"offline, with identical output. Without either, runs are analysed but not labelled (docs/metrics.md).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return o.run(c.Context(), args, c.OutOrStdout()) },
	}
	f := c.Flags()
	f.StringVar(&o.judgeURL, "judge-model-url", "", "the labellers' OpenAI-compatible chat-completions base URL (http://127.0.0.1:8000/v1)")
	f.StringVar(&o.judgeModel, "judge-model", "", "labeller A's model (and B's and the adjudicator's unless named)")
	f.StringVar(&o.second, "second-model", "", "labeller B's model, at the same endpoint (default --judge-model)")
	f.StringVar(&o.adjudicator, "adjudicator-model", "", "the adjudicator's model, at the same endpoint (default --judge-model)")
	f.StringVar(&o.cassette, "cassette", "", "with --judge-model-url, where every call is recorded (default OUT/analysis-cassette.jsonl); without it, a recording to replay offline")
	f.StringVar(&o.out, "out", "", "a folder for analysis.json, analysis.txt and the report's section, analysis.html")
	f.IntVar(&o.window, "window", 5, "agent actions per window of the response modes")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	return c
}

func (o *analyzeOpts) run(ctx context.Context, dirs []string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.window < 1 {
		return badInput("--window: want at least 1, got %d", o.window)
	}
	trials, err := loadTrials(dirs)
	if err != nil {
		return err
	}
	panel, closeRec, err := o.panel()
	if err != nil {
		return err
	}
	a, err := analyze.Run(ctx, trials, analyze.Options{Window: o.window, Panel: panel})
	if cerr := closeRec(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	var text bytes.Buffer
	a.WriteText(&text)
	js, _ := json.MarshalIndent(a, "", "  ")
	if o.asJSON {
		fmt.Fprintln(stdout, string(js))
	} else {
		stdout.Write(text.Bytes())
	}
	if o.out == "" {
		return nil
	}
	if err := atomicfile.WriteBytes(filepath.Join(o.out, "analysis.json"), 0o644, append(js, '\n')); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(o.out, "analysis.txt"), 0o644, text.Bytes()); err != nil {
		return err
	}
	return report.WriteAnalysis(o.out, a)
}

// panel is the labellers from the flags: recording calls to an endpoint,
// replaying a cassette, or none.
func (o *analyzeOpts) panel() (analyze.Panel, func() error, error) {
	none := func() error { return nil }
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return analyze.Panel{}, none, badInput("--out: %v", err)
		}
	}
	if o.judgeURL == "" {
		if o.judgeModel != "" || o.second != "" || o.adjudicator != "" {
			return analyze.Panel{}, none, badInput("--judge-model and its companions need --judge-model-url")
		}
		if o.cassette == "" {
			return analyze.Panel{}, none, nil
		}
		tape, err := user.LoadTape(o.cassette, "")
		if err != nil {
			return analyze.Panel{}, none, badInput("--cassette: %v", err)
		}
		return analyze.Panel{A: tape, B: tape, Adjudicator: tape}, none, nil
	}
	w, err := chatFlag("--judge-model", o.judgeURL, o.judgeModel, "SWETOUCH_JUDGE_API_KEY")
	if err != nil {
		return analyze.Panel{}, none, err
	}
	a := w.(*user.Chat)
	rec := o.cassette
	if rec == "" {
		if o.out == "" {
			return analyze.Panel{}, none, badInput("--judge-model-url needs --cassette FILE or --out DIR: every call is recorded")
		}
		rec = filepath.Join(o.out, "analysis-cassette.jsonl")
	}
	f, err := os.Create(rec)
	if err != nil {
		return analyze.Panel{}, none, badInput("--cassette: %v", err)
	}
	a.Record = f
	model := func(name string) *user.Chat {
		if name == "" {
			return a
		}
		return &user.Chat{URL: a.URL, Model: name, Key: a.Key, Record: f}
	}
	return analyze.Panel{A: a, B: model(o.second), Adjudicator: model(o.adjudicator)}, f.Close, nil
}

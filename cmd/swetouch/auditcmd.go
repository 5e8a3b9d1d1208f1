package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/audit/rubric"
	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/trajectory"
	"github.com/swetouch/swetouch/user"
)

// auditCmd is `swetouch audit RUN...`: UserSWE's 13-item rubric (U14)
// answered by an audit agent through the judge's endpoint, beside the
// mechanical flags each run already holds.
func auditCmd() *cobra.Command {
	var url, model string
	var replay bool
	c := &cobra.Command{
		Use:   "audit RUN... (--judge-model-url URL --judge-model NAME | --replay)",
		Short: "Answer the 13-item audit rubric (UserSWE U14) for finished runs with an audit agent through the judge's endpoint, beside their mechanical flags",
		Long: "For each run folder (result.json, trajectory.jsonl, final.diff) an audit agent (any OpenAI-compatible\n" +
			"model, key $SWETOUCH_JUDGE_API_KEY) answers the rubric; its calls are recorded in RUN/" + rubric.Log + " and\n" +
			"--replay answers from that recording, offline. The answers go to RUN/" + rubric.File + ": each item with\n" +
			"the mechanical flag's word where one answers it, the items a model flagged that no mechanical flag\n" +
			"raised (disputed), and whether the terminal item (the evaluation's material) was flagged. A model's\n" +
			"flag never makes a trial untrustworthy by itself. The rubric's items are swetouch's reading: UserSWE\n" +
			"names thirteen but does not list them.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if replay == (url != "") {
				return badInput("give --judge-model-url (with --judge-model) or --replay, one of them")
			}
			if !replay {
				if _, err := chatFlag("--judge-model", url, model, "SWETOUCH_JUDGE_API_KEY"); err != nil {
					return err
				}
			}
			for _, dir := range args {
				rep, err := auditRun(dir, url, model, replay)
				if err != nil {
					return err
				}
				var flagged []string
				for _, a := range rep.Answers {
					if a.Flag {
						flagged = append(flagged, a.ID)
					}
				}
				line := fmt.Sprintf("%s: flagged [%s]", dir, strings.Join(flagged, " "))
				if len(rep.Disputed) > 0 {
					line += fmt.Sprintf(", no mechanical flag for [%s]", strings.Join(rep.Disputed, " "))
				}
				if rep.Terminal {
					line += "; terminal: the evaluation's material was used"
				}
				if rep.Failed != "" {
					line = fmt.Sprintf("%s: no rubric: %s", dir, rep.Failed)
				}
				fmt.Fprintln(c.OutOrStdout(), line)
			}
			return nil
		},
	}
	c.Flags().StringVar(&url, "judge-model-url", "", "the audit agent's endpoint: an OpenAI-compatible chat-completions base URL")
	c.Flags().StringVar(&model, "judge-model", "", "the audit agent's model")
	c.Flags().BoolVar(&replay, "replay", false, "answer from each run's recorded audit calls ("+rubric.Log+"), offline")
	return c
}

// auditRun answers the rubric for one run folder and keeps the answer.
func auditRun(dir, url, model string, replay bool) (*rubric.Report, error) {
	res, err := result.Read(filepath.Join(dir, result.File))
	if err != nil {
		return nil, badInput("RUN %s: %v", dir, err)
	}
	ev := rubric.Evidence{Run: res}
	if tr, err := trajectory.ReadFile(filepath.Join(dir, "trajectory.jsonl")); err == nil {
		ev.Events = tr.Events
	}
	if b, err := os.ReadFile(filepath.Join(dir, "final.diff")); err == nil {
		ev.Diff = string(b)
	}
	var w user.Writer
	log := filepath.Join(dir, rubric.Log)
	if replay {
		tape, err := user.LoadTape(log, "")
		if err != nil {
			return nil, badInput("RUN %s: --replay: %v", dir, err)
		}
		w = tape
	} else {
		f, err := os.Create(log)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		w = &user.Chat{URL: url, Model: model, Key: os.Getenv("SWETOUCH_JUDGE_API_KEY"), Record: f}
	}
	rep := rubric.Audit(context.Background(), w, ev)
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := atomicfile.WriteBytes(filepath.Join(dir, rubric.File), 0o644, append(b, '\n')); err != nil {
		return nil, err
	}
	return rep, nil
}

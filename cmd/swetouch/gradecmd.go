package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/internal/atomicfile"
	"github.com/swetouch/swetouch/swebench"
)

// grade are the options of `swetouch grade`, which a SWE-bench task's
// test.sh runs inside its image: the static binary parses the log, so the
// image needs nothing of ours.
type grade struct {
	config, log, results, report string
}

func gradeCmd() *cobra.Command {
	var o grade
	c := &cobra.Command{
		Use:   "grade --config tests/config.json --log FILE [--results FILE] [--report FILE]",
		Short: "Grade a SWE-bench eval log as SWE-bench's harness does; exit 0 when resolved",
		Long: "Parses the log with the instance's repository's parser (SWE-bench's, rewritten), writes every\n" +
			"test's outcome to --results ({\"id\": \"pass\"|\"fail\"|\"error\"|\"skip\"}) and SWE-bench's report to\n" +
			"--report, and exits 0 when every FAIL_TO_PASS and PASS_TO_PASS test passed (a skipped one counts\n" +
			"against nothing, as in SWE-bench), 1 when not, 2 on bad input.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c.OutOrStdout()) },
	}
	c.Flags().StringVar(&o.config, "config", "", "the instance (a SWE-bench task's tests/config.json)")
	c.Flags().StringVar(&o.log, "log", "", "the eval log (the test command's output between SWE-bench's markers)")
	c.Flags().StringVar(&o.results, "results", "", "write every test's outcome here (JSON)")
	c.Flags().StringVar(&o.report, "report", "", "write SWE-bench's report here (JSON)")
	c.MarkFlagRequired("config")
	c.MarkFlagRequired("log")
	return c
}

func (o grade) run(w io.Writer) error {
	in, err := swebench.ReadConfig(o.config)
	if err != nil {
		return badInput("--config: %v", err)
	}
	log, err := os.ReadFile(o.log)
	if err != nil {
		return badInput("--log: %v", err)
	}
	rep, m, err := swebench.GradeLog(in, log)
	var bad *swebench.MalformedError
	if errors.As(err, &bad) {
		fmt.Fprintf(w, "swetouch grade: %s: not resolved: %v\n", in.InstanceID, err)
		return exitError{1}
	} else if err != nil {
		return err
	}
	if o.results != "" {
		if err := writeGradeJSON(o.results, swebench.Results(m)); err != nil {
			return err
		}
	}
	if o.report != "" {
		if err := writeGradeJSON(o.report, rep); err != nil {
			return err
		}
	}
	verdict := "resolved"
	switch {
	case !rep.Applied:
		verdict = "not resolved: the log has no test output between SWE-bench's markers, or a harness failure line"
	case !rep.Resolved:
		verdict = "not resolved"
	}
	fmt.Fprintf(w, "swetouch grade: %s: %s (FAIL_TO_PASS %d of %d passed, PASS_TO_PASS %d of %d)\n", in.InstanceID, verdict,
		len(rep.FailToPass.Success), len(in.FailToPass), len(rep.PassToPass.Success), len(in.PassToPass))
	for _, f := range []struct {
		name  string
		tests []string
	}{{"FAIL_TO_PASS", rep.FailToPass.Failure}, {"PASS_TO_PASS", rep.PassToPass.Failure}} {
		for _, t := range f.tests {
			fmt.Fprintf(w, "  %s failed: %s (%s)\n", f.name, t, orDefault(m[t], "no result"))
		}
	}
	if !rep.Resolved {
		return exitError{1}
	}
	return nil
}

func writeGradeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, 0o644, append(b, '\n'))
}

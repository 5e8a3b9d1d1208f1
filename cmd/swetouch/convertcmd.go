package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/swetouch/swetouch/run"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user/conversation"
)

// convertOptions is `swetouch convert`: its flags, and its run over
// them.
type convertOptions struct {
	taskDir, records, instance, out string
	budget                          int
	seed                            uint64
	seedSet                         bool // --seed given
	noSandbox                       bool
}

func convertCmd() *cobra.Command {
	var o convertOptions
	c := &cobra.Command{
		Use:   "convert --task DIR [--records FILE [--instance ID]] --out DIR [--budget N] [--seed N]",
		Short: "Turn a single-turn task (and its SWE-Touch record) into a multi-turn one: a Harbor task with conversation.json",
		Long: "Runs the task's tests on its code and with its solution (test.sh must write per-test results:\n" +
			"docs/conversation.md): the tests that fail, then pass, are the acceptance tests, those that pass\n" +
			"on both the regression tests. A SWE-bench task whose code lives in its image (swetouch tasks\n" +
			"swebench) is not run: its FAIL_TO_PASS and PASS_TO_PASS are the two, and the new task stays in\n" +
			"the image (each turn judged on test.sh's per-test results in the trial's container). The opening\n" +
			"names only where the trouble is; the pool is the issue's own sentences, a symptom per failing\n" +
			"test, and the record's mistaken belief as the wrong cause. --out gets the task (instruction.md,\n" +
			"task.toml, repo/ unless the code is the image's, tests/, solution/), its conversation.json and,\n" +
			"with --records, the record, so the user both talks and touches the code.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.seedSet = c.Flags().Changed("seed")
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	c.MarkFlagRequired("task")
	c.MarkFlagRequired("out")
	return c
}

func (o *convertOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.taskDir, "task", "", "the single-turn task (a Harbor task directory or a local task file)")
	fs.StringVar(&o.records, "records", "", "its SWE-Touch record (dataset-record-v1 JSONL): its mistaken belief joins the pool, and the record goes with the package")
	fs.StringVar(&o.instance, "instance", "", "the record's instance id (default: the task's name)")
	fs.StringVar(&o.out, "out", "", "the new multi-turn task's folder")
	fs.IntVar(&o.budget, "budget", 5, "the turn budget")
	fs.Uint64Var(&o.seed, "seed", 0, "the persona chain's seed (default: from the task's name)")
	fs.BoolVar(&o.noSandbox, "no-sandbox", false, "run the task's tests without isolation")
}

func (o *convertOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	t, err := task.Load(o.taskDir)
	if err != nil {
		return badInput("--task: %v", err)
	}
	if t.Solution == "" {
		return badInput("--task %s: no solution to tell the acceptance tests by", o.taskDir)
	}
	if _, err := os.Stat(o.out); err == nil {
		return badInput("--out %s exists: convert into a new folder", o.out)
	}
	src := conversation.Source{Name: t.Name, Instruction: t.Instruction, Budget: o.budget}
	if o.seedSet {
		src.Seed = &o.seed
	}
	var rec *task.Record
	if o.records != "" {
		recs, err := task.LoadRecords(o.records)
		if err != nil {
			return badInput("%v", err)
		}
		if rec, err = task.Find(recs, orString(o.instance, t.Name)); err != nil {
			return badInput("--records %s: %v", o.records, err)
		}
		src.MistakenBelief = mistakenBelief(rec)
	}
	if t.CodeInImage() {
		if src.Acceptance, src.Regression, err = listedSplit(t); err != nil {
			return err
		}
	} else if err := o.splitHere(t, &src); err != nil {
		return err
	}
	pkg, err := conversation.Convert(src)
	if err != nil {
		return badInput("%v", err)
	}
	if err := writeConverted(o.out, t, pkg, rec); err != nil {
		os.RemoveAll(o.out) // nothing half-done
		return err
	}
	fmt.Fprintf(stderr, "swetouch convert: %s: %d acceptance and %d regression tests, %d pool items; %s\n",
		t.Name, len(src.Acceptance), len(src.Regression), len(pkg.Pool), filepath.Join(o.out, conversation.File))
	return nil
}

// splitHere tells the acceptance tests from the regression tests by
// running the task's tests here on its code, then with its solution.
func (o *convertOptions) splitHere(t *task.Task, src *conversation.Source) error {
	sb, err := sandboxFlag(o.noSandbox)
	if err != nil {
		return err
	}
	base, err := testResults(t, false, task.WithSandbox(sb))
	if err != nil {
		return err
	}
	solved, err := testResults(t, true, task.WithSandbox(sb))
	if err != nil {
		return err
	}
	src.Acceptance, src.Regression = conversation.SplitTests(base, solved)
	return nil
}

// testResults are the task's per-test results on its code, or with its
// solution applied.
func testResults(t *task.Task, solve bool, opts ...task.VerifyOption) (map[string]string, error) {
	ws, err := run.Workspace(t.Repo)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	if solve {
		cmd := exec.Command("bash", t.Solution)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: the solution failed: %v\n%s", t.Solution, err, out)
		}
	}
	v := task.Verify(context.Background(), t, ws, append(opts, task.WithTests())...)
	switch {
	case v.Tests == nil && v.Resolved == nil:
		return nil, fmt.Errorf("%s: the tests could not run: %s", t.Dir, v.Reason)
	case v.Tests == nil:
		return nil, badInput("--task %s: test.sh wrote no per-test results to $SWETOUCH_RESULTS, which convert needs to tell the acceptance tests (docs/conversation.md)", t.Dir)
	}
	return v.Tests, nil
}

// mistakenBelief is the first Counter-Edit's belief in a record.
func mistakenBelief(rec *task.Record) string {
	for _, iv := range rec.CounterEdit.Interventions {
		if iv.Patch != nil && iv.Patch.MistakenBelief != "" {
			return iv.Patch.MistakenBelief
		}
	}
	return ""
}

// writeConverted writes the multi-turn task: the task's files in Harbor's
// layout, its conversation.json, and its record.
func writeConverted(out string, t *task.Task, pkg *conversation.Package, rec *task.Record) error {
	for _, d := range []string{"tests", "solution"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return err
		}
	}
	if t.Repo != "" { // else the code lives in the image, as it did
		if _, err := task.CopyRegular(t.Repo, filepath.Join(out, "repo")); err != nil {
			return err
		}
	}
	if _, err := task.CopyRegular(t.Tests, filepath.Join(out, "tests")); err != nil {
		return err
	}
	if dir := filepath.Dir(t.Solution); filepath.Base(dir) == "solution" {
		// what solve.sh reads beside it goes too (a SWE-bench task's
		// patch.diff)
		if _, err := task.CopyRegular(dir, filepath.Join(out, "solution")); err != nil {
			return err
		}
	}
	sol, err := os.ReadFile(t.Solution)
	if err != nil {
		return err
	}
	files := map[string][]byte{"solution/solve.sh": sol, "instruction.md": []byte(t.Instruction), "task.toml": []byte(convertedTOML(t))}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(pkg); err != nil {
		return err
	}
	files[conversation.File] = b.Bytes()
	if rec != nil {
		line, err := recordLine(rec)
		if err != nil {
			return err
		}
		files["records.jsonl"] = append(line, '\n')
	}
	for name, data := range files {
		mode := os.FileMode(0o644)
		if name == "solution/solve.sh" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(out, name), data, mode); err != nil {
			return err
		}
	}
	// what was written reads back as a multi-turn task
	nt, err := task.Load(out)
	if err != nil {
		return err
	}
	_, err = conversation.LoadTask(nt, nil)
	return err
}

// recordLine is the record's line as its file holds it (nothing of it
// lost to a round trip).
func recordLine(rec *task.Record) ([]byte, error) {
	b, err := os.ReadFile(rec.File)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(b, []byte("\n"))
	if rec.Line < 1 || rec.Line > len(lines) {
		return nil, fmt.Errorf("%s: no line %d", rec.File, rec.Line)
	}
	return bytes.TrimSpace(lines[rec.Line-1]), nil
}

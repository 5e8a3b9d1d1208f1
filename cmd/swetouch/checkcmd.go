package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user/conversation"
)

// checkOptions is `swetouch check TASK`: UserSWE's admission of a
// multi-turn task (U5), as run and eval apply it.
type checkOptions struct {
	dir       string
	noSandbox bool
	noCache   bool
	asJSON    bool
	budget    func() ([]task.VerifyOption, error)
}

func checkCmd() *cobra.Command {
	var o checkOptions
	c := &cobra.Command{
		Use:   "check TASK",
		Short: "Admit a multi-turn task (UserSWE U5): its ids listed by its tests, its base failing, its gold passing, each cascade state as it says; exit 0 admitted, 1 refused",
		Long: "Runs the task's own tests, as the verifier runs them, on copies of its code: the ids the package\n" +
			"names must be in the tests' own listing; the code as given must fail every phase's acceptance\n" +
			"tests; the reference solution must pass every acceptance and regression test; and each state of\n" +
			"a cascade (a phase fixed by its own phases[].fix diff, with those it follows) must pass that far\n" +
			"while the later phases still fail. run and eval refuse a task this refuses (exit 2). The answer\n" +
			"is kept by the task's digest in the user's cache folder, so eval does not check a task per trial.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.dir = args[0]
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	c.Flags().BoolVar(&o.noSandbox, "no-sandbox", false, "run the task's tests without isolation")
	c.Flags().BoolVar(&o.noCache, "no-cache", false, "check again even when the cache holds this task's admission")
	c.Flags().BoolVar(&o.asJSON, "json", false, "print the admission as JSON (every state's per-test results)")
	o.budget = budgetFlag(c)
	return c
}

func (o *checkOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	t, err := task.Load(o.dir)
	if err != nil {
		return badInput("TASK: %v", err)
	}
	ct, err := conversation.LoadTask(t, nil)
	switch {
	case err != nil:
		return badInput("TASK: %v", err)
	case ct == nil:
		return badInput("TASK %s: no %s: admission is for multi-turn tasks", o.dir, conversation.File)
	}
	sb, err := sandboxFlag(o.noSandbox)
	if err != nil {
		return err
	}
	verify, err := o.budget()
	if err != nil {
		return err
	}
	cache := conversation.DefaultCache()
	if o.noCache {
		cache = conversation.Cache{}
	}
	a, cached, err := admit(ctx, cache, ct, sb, verify)
	if err != nil {
		return err
	}
	if o.asJSON {
		b, _ := json.MarshalIndent(a, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		printAdmission(stdout, a, filepath.Join(t.Dir, conversation.File), cached)
	}
	if !a.Admitted {
		return exitError{1}
	}
	return nil
}

// printAdmission says what each state's tests gave and every refusal.
func printAdmission(w io.Writer, a *conversation.Admission, path string, cached bool) {
	for _, state := range slices.Sorted(maps.Keys(a.States)) {
		res := a.States[state]
		fmt.Fprintf(w, "%s:", state)
		for _, id := range slices.Sorted(maps.Keys(res)) {
			fmt.Fprintf(w, " %s=%s", id, res[id])
		}
		fmt.Fprintln(w)
	}
	for _, r := range a.Refusals {
		field := ""
		if r.Field != "" {
			field = " field " + r.Field + ":"
		}
		fmt.Fprintf(w, "refused (%s): %s:%s %s\n", r.Condition, path, field, r.Detail)
	}
	from := ""
	if cached {
		from = " (cached by the task's digest)"
	}
	if a.Admitted {
		fmt.Fprintf(w, "%s: admitted%s\n", a.Task, from)
	} else {
		fmt.Fprintf(w, "%s: not admitted, %d %s%s\n", a.Task, len(a.Refusals), plural(len(a.Refusals), "condition"), from)
	}
}

// admit is ct's admission, its tests run in sb as the verifier runs
// them, from cache when it holds the task's digest. An error is a check
// that could not run.
func admit(ctx context.Context, cache conversation.Cache, ct *conversation.Task, sb sandbox.Setup, verify []task.VerifyOption) (*conversation.Admission, bool, error) {
	how := "sandboxed"
	if sb.Runner == nil {
		how = "unsandboxed"
	}
	// an answer of another build of swetouch is not this one's
	how += " " + selfDigest()
	opts := append(slices.Clone(verify), task.WithSandbox(sb))
	a, cached, err := cache.Admit(ctx, ct.Task, ct.Package, how, opts...)
	if err != nil {
		return nil, false, fmt.Errorf("checking %s's admission: %w", ct.Task.Dir, err)
	}
	return a, cached, nil
}

// admitted refuses, as bad input, a multi-turn task its admission
// refuses (run and eval: nothing of it runs); conv nil is a single-turn
// task, admitted as it is.
func admitted(conv bool, t *task.Task, sb sandbox.Setup, verify []task.VerifyOption) error {
	if !conv {
		return nil
	}
	ct, err := conversation.LoadTask(t, nil)
	if err != nil || ct == nil {
		return badInput("--task: %v", err)
	}
	a, _, err := admit(context.Background(), conversation.DefaultCache(), ct, sb, verify)
	if err != nil {
		return err
	}
	var na *conversation.NotAdmitted
	if err := a.Err(filepath.Join(t.Dir, conversation.File)); errors.As(err, &na) {
		return badInput("%v", err)
	}
	return nil
}

// selfDigest is the SHA-256 of the running executable ("" when it
// cannot be read): admissions cached by one build are not another's.
func selfDigest() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

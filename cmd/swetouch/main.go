// Command swetouch tests how coding agents behave when a user touches the
// code mid-task. See the README for the subcommands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/gocache"
	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/shim"
	"github.com/swetouch/swetouch/task"
)

// usageError is bad input: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError carries a chosen exit code with nothing more to print.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	// reached as bash or sh through the shim directory (or at /bin/sh in
	// a sandbox, as dash and rbash too), or as
	// `swetouch shell …`: bash's own argument syntax, not ours
	switch name := filepath.Base(os.Args[0]); {
	case shim.Shell(name):
		shim.Exit(shim.Main(os.Args[0], os.Args[1:]))
	case len(os.Args) > 1 && os.Args[1] == "shell":
		shim.Exit(shim.Main("bash", os.Args[2:]))
	case name == run.SelfCheckCommand:
		os.Exit(selfCheck(os.Stdout, os.Stderr))
	case name == gocache.RelayName:
		os.Exit(gocache.Relay(os.Args[1:]))
	}
	// after the shim's cases: a command run through the shim keeps what
	// its caller passes it (a make jobserver's pipes)
	if err := sandbox.CloseInherited(); err != nil {
		fmt.Fprintln(os.Stderr, "swetouch:", err)
		os.Exit(1)
	}
	// a hook or a relay in a sandbox holds an admitted connection too
	shim.Undumpable()
	os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the exit code (exitCode): 0 ok, 1 a
// check failed, 2 bad input, the command line's included.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	var ee exitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(stderr, "swetouch:", err)
	}
	return exitCode(err)
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "swetouch",
		Short:         "Test how coding agents behave when a user touches the code mid-task",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("swetouch {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(classifyCmd(), importCmd(), patchCmd(), policyCmd(), runCmd(), agentCmd(), demoCmd(), modelCmd(), hookCmd(), mcpCmd(), agentConfigCmd(), gateCmd(), scoreCmd(), evalCmd(), mineCmd(), reportCmd(), assembleCmd(), installCmd(), replayCmd(), acpCmd(), examplesCmd(), convertCmd(), generateCmd(), buildCmd(), recordsCmd(), imagesCmd(), tasksCmd(), gradeCmd(), k8sCmd(), analyzeCmd(), checkCmd(), personasCmd(), cascadesCmd(), auditCmd())
	markRan(root)
	return root
}

// selfCheck is swetouch-self-check, as a generator agent runs it in its
// workspace: the session's report on the edit there, exit 0 when the edit
// does what it must, 1 when not, 2 when there is no session to ask.
func selfCheck(stdout, stderr io.Writer) int {
	sock := os.Getenv("SWETOUCH_SOCKET")
	if sock == "" {
		fmt.Fprintln(stderr, "swetouch-self-check: no session (SWETOUCH_SOCKET is not set)")
		return 2
	}
	c, err := session.Dial(sock)
	if err != nil {
		fmt.Fprintln(stderr, "swetouch-self-check:", err)
		return 2
	}
	defer c.Close()
	report, err := c.SelfCheck()
	if err != nil {
		fmt.Fprintln(stderr, "swetouch-self-check:", err)
		return 2
	}
	fmt.Fprintln(stdout, report)
	if strings.HasPrefix(report, "ok:") {
		return 0
	}
	return 1
}

// orString is s, or d when s is empty (a flag's default).
func orString(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// agentList names the registered agents, for the flags that take one.
func agentList() string { return strings.Join(agents.Names(), ", ") }

// stepLimitFlag binds --step-limit: the agent's model calls, counted by a
// recorder in front of its endpoint and passed to its own limit where it
// has one.
func stepLimitFlag(c *cobra.Command, n *int) {
	c.Flags().IntVar(n, "step-limit", 0, "end the agent after N model calls, counted by a recorder in front of its endpoint (--model-upstream, or one made in front of --model-url); passed to the agent's own limit where it has one; result.json says stopped: step_limit. Default: the paper's budget for a released record's benchmark (100 on swe_bench_verified, 500 on swe_bench_pro and deepswe), none for other tasks; 0: none")
}

// stepLimitOf is the step limit a trial of rec runs with: the flag's
// when given (set), else the paper's budget for the record's benchmark.
func stepLimitOf(flag int, set bool, rec *task.Record) int {
	if set || rec == nil {
		return flag
	}
	return rec.PaperStepLimit()
}

package main

import (
	"errors"
	"net"

	"github.com/spf13/cobra"
)

// The exit codes, decided in one place (exitCode): 0 ok; 1 a check
// failed, or, for run, the agent could not start; 2 bad input; 130
// interrupted. What cobra refuses before a command runs (an unknown
// command, missing or extra arguments, a required flag not set, a bad
// flag) is bad input: it exited 1, which for run says the agent could not
// start.

// ranError is an error a command's own code returned, as opposed to one
// cobra returned before running it.
type ranError struct{ err error }

func (e ranError) Error() string { return e.err.Error() }
func (e ranError) Unwrap() error { return e.err }

// markRan wraps the RunE and PreRunE of c and every command under it, so
// their errors can be told from cobra's own.
func markRan(c *cobra.Command) {
	wrap := func(f func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
		if f == nil {
			return nil
		}
		return func(c *cobra.Command, args []string) error {
			if err := f(c, args); err != nil {
				return ranError{err}
			}
			return nil
		}
	}
	c.RunE, c.PreRunE = wrap(c.RunE), wrap(c.PreRunE)
	for _, sub := range c.Commands() {
		markRan(sub)
	}
}

// exitCode maps what Execute returned to the process's exit code.
func exitCode(err error) int {
	var ee exitError
	var ue usageError
	var ran ranError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ran):
		return 1
	default:
		// cobra's: the command line names no command, or not as it takes it
		return 2
	}
}

// listen serves on a --listen address; one it cannot serve on is bad
// input, named by its flag.
func listen(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, badInput("--listen %s: %v", addr, err)
	}
	return l, nil
}

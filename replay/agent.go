package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/patch"
)

// Hub is what a re-driven native action needs of the session: report an
// event, and take file changes made outside a command now.
type Hub interface {
	Observe(ev event.Event) (int64, error)
	Sync(channel string) error
}

// RedriveConfig says how to re-drive actions.
type RedriveConfig struct {
	// Dir is the workspace: commands run in it, native edits land in it.
	Dir string
	// Roots maps the recording's container root to Dir in commands.
	Roots RootMap
	// Timeout bounds each command (0: none); a command that hangs in the
	// replay is killed with its process group and the replay goes on.
	Timeout time.Duration
	// Hub receives native actions; nil skips them (there is no session).
	Hub Hub
	// Log receives a transcript: each command and its output.
	Log io.Writer
}

// Redrive runs the actions again, in order, the way the recorded agent
// did: each command as `bash -c` found on PATH (the shim, in a session),
// each native edit by applying its recorded diffs to the files (as the
// agent's own tool would), each native read reported to the hub. Nothing
// waits for recorded latencies.
func Redrive(ctx context.Context, actions []Action, cfg RedriveConfig) error {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return err
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	for _, a := range actions {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !a.Native() {
			cmd := cfg.Roots.Command(a.Command)
			fmt.Fprintf(log, "$ %s\n", cmd)
			out, err := runCommand(ctx, bash, cmd, cfg.Dir, cfg.Timeout)
			log.Write(out)
			if err != nil {
				return fmt.Errorf("step %d: %w", a.Step, err)
			}
			continue
		}
		fmt.Fprintf(log, "# native %s\n", label(a))
		for _, d := range a.Diffs {
			if err := applyRecorded(cfg.Dir, d); err != nil {
				fmt.Fprintf(log, "# the recorded edit does not apply: %v\n", err)
			}
		}
		if cfg.Hub == nil {
			continue
		}
		for _, ev := range a.Observed {
			ev.Seq, ev.Step, ev.Time = 0, nil, time.Time{}
			if _, err := cfg.Hub.Observe(ev); err != nil {
				return fmt.Errorf("step %d: %w", a.Step, err)
			}
		}
		if len(a.Observed) == 0 || len(a.Diffs) > 0 {
			if err := cfg.Hub.Sync("tool-output"); err != nil {
				return fmt.Errorf("step %d: %w", a.Step, err)
			}
		}
	}
	return nil
}

// runCommand runs one command in its own process group; a non-zero exit
// is the command's business, not an error of the replay.
func runCommand(ctx context.Context, bash, command, dir string, timeout time.Duration) ([]byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bash, "-c", command)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err == nil || errors.As(err, &ee) || errors.Is(err, exec.ErrWaitDelay) {
		return out, nil
	}
	return out, err
}

// applyRecorded lands a recorded diff on the workspace with the same
// applier Counter-Edits use.
func applyRecorded(dir, diff string) error {
	fds, err := patch.Parse(diff)
	if err != nil {
		return err
	}
	rep, err := patch.Apply(patch.Dir(dir), fds)
	if err != nil {
		return err
	}
	if !rep.Applied {
		return fmt.Errorf("not applied")
	}
	return nil
}

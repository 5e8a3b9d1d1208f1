// Command bench-replay measures what replaying a recorded session costs
// over running the same commands directly, in one run, as a ratio (budget
// 1.05): both sides start from the same fresh workspace and run the
// recorded actions in order; the replay goes through the hub, the shim and
// the watcher (`swetouch agent replay` inside a session), the direct side
// is `bash -c` per command with native edits applied in process. Setup
// and verification are outside both measurements.
//
// Run: go run ./scripts/bench-replay -traj FILE -task DIR [-n 3]
// (e.g. a dev-split Gemini run with its base checkout as the task; see
// replay/corpus_replay_test.go for building one).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/swetouch/swetouch/agents"

	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/task"
)

func main() {
	trajFile := flag.String("traj", "", "the recording (ours or mini-swe-agent's)")
	taskDir := flag.String("task", "", "the task the recording starts from")
	n := flag.Int("n", 3, "runs of each side, alternating")
	flag.Parse()
	if err := measure(*trajFile, *taskDir, *n); err != nil {
		fmt.Fprintln(os.Stderr, "bench-replay:", err)
		os.Exit(1)
	}
}

func measure(trajFile, taskDir string, n int) error {
	defer testbin.Cleanup()
	bin, err := testbin.Dir()
	if err != nil {
		return err
	}
	exe := filepath.Join(bin, "swetouch")
	data, err := os.ReadFile(trajFile)
	if err != nil {
		return err
	}
	var tr *trajectory.Trajectory
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`{"format"`)) {
		tr, err = trajectory.Read(bytes.NewReader(data), trajFile)
	} else {
		tr, err = replay.ImportMiniSWEAgent(data, trajFile, replay.ImportOptions{})
	}
	if err != nil {
		return err
	}
	t, err := task.Load(taskDir)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "bench-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	recorded := filepath.Join(scratch, "recorded.jsonl")
	if err := trajectory.WriteFile(recorded, tr); err != nil {
		return err
	}
	actions := replay.Actions(tr)
	var direct, replayed []time.Duration
	for i := 0; i < n; i++ {
		d, err := runDirect(t, tr, actions)
		if err != nil {
			return err
		}
		direct = append(direct, d)
		out := filepath.Join(scratch, fmt.Sprintf("run-%d", i))
		res, err := run.Trial(context.Background(), run.Config{Task: t, Condition: policy.Vanilla, Out: out, Shim: exe,
			Agent: agents.Command(exe, "agent", "replay", "--trajectory", recorded, "--root", tr.Header.Root)})
		if err != nil {
			return err
		}
		replayed = append(replayed, time.Duration(res.Timings.Agent*float64(time.Second)))
		fmt.Printf("run %d: direct %s, replay %s\n", i+1, d.Round(time.Millisecond), replayed[i].Round(time.Millisecond))
	}
	md, mr := median(direct), median(replayed)
	fmt.Printf("%d actions; median direct %s, replay %s: ratio %.3f (budget 1.05)\n", len(actions), md.Round(time.Millisecond), mr.Round(time.Millisecond), float64(mr)/float64(md))
	return nil
}

// runDirect runs the actions with plain bash in a fresh workspace.
func runDirect(t *task.Task, tr *trajectory.Trajectory, actions []replay.Action) (time.Duration, error) {
	ws, err := run.Workspace(t.Repo)
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(ws)
	start := time.Now()
	err = replay.Redrive(context.Background(), actions, replay.RedriveConfig{Dir: ws, Roots: replay.RootMap{Root: tr.Header.Root, Workspace: ws}, Timeout: time.Minute})
	return time.Since(start), err
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

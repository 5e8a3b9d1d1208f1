package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

const (
	targetBurstTime = "50,000 new files: the session's time"
	targetBurstRSS  = "50,000 new files: the session's memory"
)

// burstPart puts 50,000 small files in a session's workspace at once, as
// an agent's command can (an install, a build, an attack on the watcher):
// made beside the workspace (the floor: the agent's own cost) and moved in
// as one directory, so that one Sync takes them all and the session's
// share is not hidden in the making. It times what the session spends
// taking them (the hub's Idle: the watcher's Sync, the events, the
// trajectory), with the process's RSS growth. Issue 49's budget: under
// 5 s and under 200 MB.
func burstPart(res *results, tmp string) error {
	ws := filepath.Join(tmp, "burst")
	if err := tree(ws, 100, 10); err != nil {
		return err
	}
	host, stop, err := recordingHost(ws, "")
	if err != nil {
		return err
	}
	defer stop()
	runtime.GC()
	before := rssKB()
	t0 := time.Now()
	const n = 50000
	outside := filepath.Join(tmp, "burst-gen")
	for i := range n {
		d := filepath.Join(outside, fmt.Sprintf("d%03d", i%200))
		if i < 200 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			return err
		}
	}
	made := time.Since(t0)
	if err := os.Rename(outside, filepath.Join(ws, "gen")); err != nil {
		return err
	}
	t1 := time.Now()
	if err := host.Hub.Idle(context.Background()); err != nil {
		return err
	}
	took := time.Since(t1)
	grew := float64(rssKB()-before) / 1024
	st := host.Hub.Status()
	res.say("50,000 new files        the session took %.2f s (budget 5 s) after they took %.2f s to make; RSS +%.0f MB (budget 200 MB); %d events",
		took.Seconds(), made.Seconds(), grew, st.Seq)
	res.target(figure{Target: targetBurstTime, Value: took.Seconds() * 1000, Unit: "ms", Floor: made.Seconds() * 1000, FloorIs: "making the files", Budget: 5000, Runs: 1})
	res.target(figure{Target: targetBurstRSS, Value: grew, Unit: "MB", Budget: 200, Runs: 1})
	return nil
}

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// measured is one command's wall time, its CPU time (user and system:
// on a machine shared with other work the wall time is mostly waiting,
// the CPU time is what the command itself cost) and peak memory.
type measured struct {
	wall, cpu time.Duration
	rss       int64 // bytes
}

func (m measured) String() string {
	return fmt.Sprintf("%.2f s (CPU %.2f s), %d MB", m.wall.Seconds(), m.cpu.Seconds(), m.rss>>20)
}

// measure runs the binary with args, its output discarded, and takes the
// best wall time of three runs (the files in the page cache, as after
// the first) with the most memory any of them used.
func measure(bin string, args ...string) (measured, error) { return measureN(3, bin, args...) }

// measureOnce is one run's figures (a run that changes what the next
// one finds: the first score writes the folder's index).
func measureOnce(bin string, args ...string) (measured, error) { return measureN(1, bin, args...) }

func measureN(n int, bin string, args ...string) (measured, error) {
	var best measured
	for i := range n {
		cmd := exec.Command(bin, args...)
		cmd.Stdout = io.Discard
		var stderr strings.Builder
		cmd.Stderr = &stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return best, fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
		}
		wall := time.Since(t0)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		if i == 0 || wall < best.wall {
			best.wall = wall
		}
		if cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); i == 0 || cpu < best.cpu {
			best.cpu = cpu
		}
		best.rss = max(best.rss, rss)
	}
	return best, nil
}

// openTime is how long headless Chromium takes to load the page and
// write out its DOM (so every element was parsed and laid out), the best
// of three, beside the same for a blank page: the browser's own start.
func openTime(browser, page, tmp string) (load, blank time.Duration, err error) {
	empty := filepath.Join(tmp, "blank.html")
	if err := os.WriteFile(empty, []byte("<!DOCTYPE html><title>blank</title>"), 0o644); err != nil {
		return 0, 0, err
	}
	timeIt := func(p string) (time.Duration, error) {
		var best time.Duration
		for i := range 3 {
			cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
				"--user-data-dir="+filepath.Join(tmp, "chromium"), "--window-size=1400,1000", "--dump-dom", "file://"+p)
			cmd.Stdout = io.Discard
			var stderr strings.Builder
			cmd.Stderr = &stderr
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				return 0, fmt.Errorf("chromium: %v\n%s", err, stderr.String())
			}
			if d := time.Since(t0); i == 0 || d < best {
				best = d
			}
		}
		return best, nil
	}
	if blank, err = timeIt(empty); err != nil {
		return 0, 0, err
	}
	load, err = timeIt(page)
	return load, blank, err
}

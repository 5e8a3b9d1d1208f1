package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPU per call, beside the added times: on two shared cores a process's
// added time moves with what the others do, its CPU much less, and the
// CPU says where a way's cost is (the relay, the hub, the floors' own
// processes).

// procCPU is the time every thread of pid has run (schedstat, in ns).
func procCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread gone meanwhile
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += ns
		}
	}
	return time.Duration(total)
}

// childPids are this process's children now.
func childPids() map[int]bool {
	out := map[int]bool{}
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil {
				out[pid] = true
			}
		}
	}
	return out
}

// newChild is the one child of this process not in before (0 if none or
// several).
func newChild(before map[int]bool) int {
	pid := 0
	for p := range childPids() {
		if !before[p] {
			if pid != 0 {
				return 0
			}
			pid = p
		}
	}
	return pid
}

// cpuMeter reads the CPU of a set of processes before and after a run.
type cpuMeter struct {
	pids   []int
	before []time.Duration
}

func (m *cpuMeter) start(pids ...int) {
	m.pids, m.before = pids, make([]time.Duration, len(pids))
	for i, p := range pids {
		m.before[i] = procCPU(p)
	}
}

// perCall is each process's CPU since start, per call of n.
func (m *cpuMeter) perCall(n int) []float64 {
	out := make([]float64, len(m.pids))
	for i, p := range m.pids {
		if p != 0 {
			out[i] = float64(procCPU(p)-m.before[i]) / float64(time.Microsecond) / float64(n)
		}
	}
	return out
}

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

// procSwitches is how many times every thread of pid has been switched
// out, from each thread's status file: the times it gave up the CPU (to
// wait) and the times it had the CPU taken (another thread went first).
// Each is a wake-up paid for.
func procSwitches(pid int) (gave, taken int64) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				gave += n
			} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				taken += n
			}
		}
	}
	return gave, taken
}

// cpuMeter reads the CPU and the context switches of a set of processes
// before and after a run.
type cpuMeter struct {
	pids     []int
	before   []time.Duration
	switches [][2]int64
}

func (m *cpuMeter) start(pids ...int) {
	m.pids, m.before, m.switches = pids, make([]time.Duration, len(pids)), make([][2]int64, len(pids))
	for i, p := range pids {
		m.before[i] = procCPU(p)
		m.switches[i][0], m.switches[i][1] = procSwitches(p)
	}
}

// switchesPerCall is each process's context switches since start, per
// call of n: those where it gave up the CPU (it waited), and those where
// it had it taken (another thread woke on its CPU and went first).
func (m *cpuMeter) switchesPerCall(n int) [][2]float64 {
	out := make([][2]float64, len(m.pids))
	for i, p := range m.pids {
		if p != 0 {
			gave, taken := procSwitches(p)
			out[i] = [2]float64{float64(gave-m.switches[i][0]) / float64(n), float64(taken-m.switches[i][1]) / float64(n)}
		}
	}
	return out
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

// switches prints a switchesPerCall figure.
func switches(s [2]float64) string { return fmt.Sprintf("%.1f + %.1f", s[0], s[1]) }

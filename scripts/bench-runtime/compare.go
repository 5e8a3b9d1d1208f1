package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/swetouch/swetouch/agents"
)

// The stdio compare's targets: each of its two calls' added time and CPU
// (named once: a skipped part lists them as not measured).
const (
	compareAdded = "compared: this build's added - the other's"
	compareCPU   = "compared: this build's CPU/call - the other's"
	compareCall  = ""
	compareRead  = " (16 KiB read)"
)

// comparePart times this build's stdio relay and another's (-compare:
// a directory holding its swetouch and swetouch-shim), each with a live hub of its own,
// taking turns call by call with the server alone: what each adds is
// paired within the run, so a change's effect is not lost in how far the
// VM's speed moves between runs.
func comparePart(res *results, n int, bin, other, ws string) error {
	fs, err := agents.FindAgent("mcp-server-filesystem")
	if err != nil {
		// said by the stdio part
		for _, call := range []string{compareCall, compareRead} {
			res.notMeasured(err.Error(), compareAdded+call, compareCPU+call)
		}
		return nil
	}
	ours, theirs, hubIs, err := compareHubs(bin, other, ws)
	if err != nil {
		return err
	}
	defer ours.stop()
	defer theirs.stop()
	res.say("compared with %s: its hub is %s", other, hubIs)
	relay := func(dir, sock string) []string { return stdioRelay(dir, ws, sock, fs) }
	// the short call, and a source file's read (readPart's), whose
	// result the relay and the hub read and record whole
	read, err := readRequest(ws)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		name, what string
		req        mcp.CallToolRequest
	}{{compareCall, "a call", listDirs()}, {compareRead, "a 16 KiB read", read}} {
		t, cpu, _, err := mcpTimes(n, ws, c.req, []int{ours.pid, theirs.pid}, []string{fs, ws}, relay(bin, ours.sock), relay(other, theirs.sock))
		if err != nil {
			return err
		}
		us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
		res.say("compared with %s, %s: its relay with a live hub added %.0f µs, this build's %.0f µs, paired over %d calls; CPU per call, relay + hub: %.0f + %.0f µs theirs, %.0f + %.0f ours",
			other, c.what, us(t[2]), us(t[1]), n, cpu[2], cpu[4], cpu[1], cpu[3])
		// for reference, so that -runs gives the A/B's spread over runs
		// (one run's difference is within what this VM moves by)
		res.target(figure{Target: compareAdded + c.name, Value: us(t[1]) - us(t[2]), Unit: "µs", FloorIs: "the other build's relay, same turns", Runs: n, Info: true})
		res.target(figure{Target: compareCPU + c.name, Value: cpu[1] + cpu[3] - cpu[2] - cpu[4], Unit: "µs", FloorIs: "the other build's relay and hub", Runs: n, Info: true})
	}
	return nil
}

// compareHubs starts a fresh live hub for this build's relay and one
// for the other build's (in other), alike, and says whose the other is.
func compareHubs(bin, other, ws string) (ours, theirs *helperProc, hubIs string, err error) {
	for _, name := range []string{"swetouch", "swetouch-shim"} {
		if _, err := os.Stat(filepath.Join(other, name)); err != nil {
			return nil, nil, "", fmt.Errorf("-compare: %v (the directory holds another build's swetouch and swetouch-shim)", err)
		}
	}
	ours, err = hubProcess(ws, "live", filepath.Join(bin, "swetouch-shim"))
	if err != nil {
		return nil, nil, "", err
	}
	// a hub admits only the swetouch beside its shim (session.WithClients):
	// the other build's relay needs a hub of the other build's shim
	// with the other build's bench binary beside them, its hub is that
	// build's too, and a change to the hub shows; without, both hubs are
	// this binary's and only the relays differ
	hubBy, hubIs := "", "this bench's own (put the other build's bench-runtime in the directory to compare hubs too)"
	if _, err := os.Stat(filepath.Join(other, "bench-runtime")); err == nil {
		hubBy, hubIs = filepath.Join(other, "bench-runtime"), "its own build's"
	}
	theirs, err = otherHub(hubBy, ws, filepath.Join(other, "swetouch-shim"))
	if err != nil {
		ours.stop()
		return nil, nil, "", err
	}
	return ours, theirs, hubIs, nil
}

// compareHTTPPart is comparePart over HTTP: this build's `swetouch mcp
// --upstream` and the other's, each with a live hub of its own, in front
// of one mcp-go server, taking turns call by call with the server alone.
// Ten runs of one build moved the HTTP relay's ratio to its floor from
// 1.44 to 1.80 (docs/runtime.md, twenty-first stop): a change to the HTTP
// path is only seen paired.
func compareHTTPPart(res *results, n int, bin, other, ws string) error {
	ours, theirs, hubIs, err := compareHubs(bin, other, ws)
	if err != nil {
		return err
	}
	defer ours.stop()
	defer theirs.stop()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ps := urlProcs{pids: map[string]int{}}
	defer ps.stop()
	up, err := ps.start(self, helperServe)
	if err != nil {
		return err
	}
	relay := func(dir, sock string) (string, error) {
		return ps.start(filepath.Join(dir, "swetouch"), "mcp", "--root", ws, "--upstream", up, "--session", sock)
	}
	mine, err := relay(bin, ours.sock)
	if err != nil {
		return err
	}
	others, err := relay(other, theirs.sock)
	if err != nil {
		return err
	}
	clients, err := httpClients(up, mine, others)
	defer closeAll(clients)
	if err != nil {
		return err
	}
	var m cpuMeter
	m.start(ps.pids[mine], ps.pids[others], ours.pid, theirs.pid)
	t, err := alternate(n, pingCall(), clients...)
	if err != nil {
		return err
	}
	cpu := m.perCall(n)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	res.say("compared with %s over HTTP (its hub is %s): its relay with a live hub added %.0f µs, this build's %.0f µs, paired over %d calls; CPU per call, relay + hub: %.0f + %.0f µs theirs, %.0f + %.0f ours",
		other, hubIs, us(t[2]), us(t[1]), n, cpu[1], cpu[3], cpu[0], cpu[2])
	res.target(figure{Target: "compared over HTTP: this build's added - the other's", Value: us(t[1]) - us(t[2]), Unit: "µs", FloorIs: "the other build's relay, same turns", Runs: n, Info: true})
	res.target(figure{Target: "compared over HTTP: this build's CPU/call - the other's", Value: cpu[0] + cpu[2] - cpu[1] - cpu[3], Unit: "µs", FloorIs: "the other build's relay and hub", Runs: n, Info: true})
	return nil
}

// otherHub is the other build's live hub: run by its bench binary exe,
// or by this one when exe is "".
func otherHub(exe, ws, shim string) (*helperProc, error) {
	if exe == "" {
		return hubProcess(ws, "live", shim)
	}
	return socketHelperOf(exe, "the other build's hub process", helperHub, ws, "live", shim, "compared")
}

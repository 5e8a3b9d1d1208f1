package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ownerFile, in a run's private directory, names the process that owns
// the run and the folders it made, so that the next run can remove what
// a run killed outright (kill -9) left behind.
const ownerFile = "owner.json"

type owner struct {
	PID int `json:"pid"`
	// Start is the process's start time (field 22 of /proc/PID/stat): a
	// PID reused by another process is not the owner.
	Start string   `json:"start"`
	Paths []string `json:"paths"`
}

// procStart is the start time of process pid, "" when it is gone.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// the command name (field 2) is in parentheses and may hold spaces
	if i := bytes.LastIndexByte(b, ')'); i >= 0 {
		if f := strings.Fields(string(b[i+1:])); len(f) > 19 {
			return f[19]
		}
	}
	return ""
}

// own records that this process owns private and paths (removed with it).
func own(private string, paths ...string) error {
	o := owner{PID: os.Getpid(), Start: procStart(os.Getpid()), Paths: paths}
	b, _ := json.Marshal(o)
	return os.WriteFile(filepath.Join(private, ownerFile), b, 0o600)
}

// removeLeftovers removes the private directories under tmp (and the
// folders they name) of runs whose process is gone. A run whose owner
// file cannot be read is left alone: it may be starting.
func removeLeftovers(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, "swetouch-run-*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		var o owner
		if json.Unmarshal(b, &o) != nil || o.PID <= 0 || o.Start == "" {
			continue
		}
		if procStart(o.PID) == o.Start {
			continue // still running
		}
		for _, p := range o.Paths {
			// only what a run makes: temporary folders of swetouch's
			if filepath.Dir(p) == tmp && strings.HasPrefix(filepath.Base(p), "swetouch-") {
				os.RemoveAll(p)
			}
		}
		os.RemoveAll(d)
	}
}

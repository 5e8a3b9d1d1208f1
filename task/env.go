package task

import (
	"path/filepath"
	"strings"
)

// safePath drops the entries of env's PATH that are empty or relative:
// each is a lookup in the tests' working directory, the agent's copy, so
// a `./python3` the agent left would run in place of the harness's (an
// empty entry is "."). The last PATH is the one a process sees (as
// exec.Cmd keeps it); dropped says what went, for the verdict.
func safePath(env []string) (out, dropped []string) {
	last := -1
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			last = i
		}
	}
	for i, kv := range env {
		v, ok := strings.CutPrefix(kv, "PATH=")
		if !ok {
			out = append(out, kv)
			continue
		}
		if i != last {
			continue
		}
		var keep []string
		for _, dir := range strings.Split(v, string(filepath.ListSeparator)) {
			if filepath.IsAbs(dir) {
				keep = append(keep, dir)
			} else {
				dropped = append(dropped, dir)
			}
		}
		out = append(out, "PATH="+strings.Join(keep, string(filepath.ListSeparator)))
	}
	return out, dropped
}

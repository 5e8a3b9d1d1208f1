package swebench

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// maxCompared is the longest fuzzed log held to the official parsers.
const maxCompared = 256

func unquoteGo(s string) (string, error) { return strconv.Unquote(s) }

// FuzzParsers runs every parser of ours on any log: none may panic, and,
// where the venv with the official package is here, each must give the
// official parser's answer (go test -fuzz FuzzParsers runs it against
// them live; its corpus is also TestDifferential's).
func FuzzParsers(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// each log's lines in pieces short enough to hold to the official
		for len(b) > 0 {
			n := min(len(b), maxCompared)
			f.Add(string(b[:n]))
			b = b[n:]
		}
	}
	for _, s := range []string{
		"FAILED", "FAIL:", "ERROR:\n", " PASSED ", "PASSED", "test_x F\n test_y ok", "_ a.py:b _",
		"x ... ok\nok", "\x1b[32mPASSED\x1b[0m t", "PASSED\x1ct", "test_\x1fE", "PASSED t[/a/b]",
	} {
		f.Add(s)
	}
	var o *official
	if py, _ := venvPython(); py != "" {
		o = startOfficial(f)
	}
	f.Fuzz(func(t *testing.T, log string) {
		log = validText([]byte(log))
		for _, name := range parserNames() {
			m, err := parserNamed(name)(log)
			if err == nil && m == nil {
				t.Fatalf("%s: no map and no error", name)
			}
			// the official parsers' regular expressions backtrack: past a
			// few hundred bytes each run takes Python seconds
			if o == nil || len(log) > maxCompared {
				continue
			}
			if d := sameAsOfficial(m, err, o.parse(t, name, log)); d != "" {
				t.Errorf("%s on %q: %s", name, log, d)
			}
		}
	})
}

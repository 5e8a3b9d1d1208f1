package swebench

import (
	"regexp"
	"strings"
)

// Django's runner prints "name (module.Class) ... ok" (or FAIL, ERROR,
// skipped), sometimes with the verdict lines later ("ok" alone) when a test
// prints; and "FAIL: name" / "ERROR: name" headers in the summary.
var djangoPassSuffixes = []string{" ... ok", " ... OK", " ...  OK"}

// djangoSplitRes are the official parser's three shapes of a test's line
// broken by a long message printed between its name and its "ok".
var djangoSplitRes = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(.*?)` + pyReSpace + `\.\.\.` + pyReSpace + `Testing against Django installed in ((?s:.*?)) silenced\)\.\nok$`),
	regexp.MustCompile(`(?m)^(.*?)` + pyReSpace + `\.\.\.` + pyReSpace + `Internal Server Error: /(.*)/\nok$`),
	regexp.MustCompile(`(?m)^(.*?)` + pyReSpace + `\.\.\.` + pyReSpace + `System check identified no issues \(0 silenced\)\nok$`),
}

// djangoMigrationLine is the one test (django-7188) whose line begins
// with a migration's output; the official parser cuts it off.
const djangoMigrationLine = "Applying sites.0002_alter_domain_unique...test_no_migrations"

func parseDjango(log string) (map[string]string, error) {
	m := map[string]string{}
	prev, havePrev := "", false
	for i, line := range pyLines(log) {
		line = pyStrip(line)
		if strings.Contains(line, "--version is equivalent to version") {
			m["--version is equivalent to version"] = StatusPassed
		}
		if strings.Contains(line, " ... ") {
			prev, _, _ = strings.Cut(line, " ... ")
			havePrev = true
		}
		for _, suffix := range djangoPassSuffixes {
			if strings.HasSuffix(line, suffix) {
				if strings.HasPrefix(pyStrip(line), djangoMigrationLine) {
					_, after, _ := strings.Cut(line, "...")
					line = pyStrip(after)
				}
				test := line
				if j := strings.LastIndex(line, suffix); j >= 0 {
					test = line[:j]
				}
				m[test] = StatusPassed
				break
			}
		}
		if strings.Contains(line, " ... skipped") {
			test, _, _ := strings.Cut(line, " ... skipped")
			m[test] = StatusSkipped
		}
		if strings.HasSuffix(line, " ... FAIL") {
			test, _, _ := strings.Cut(line, " ... FAIL")
			m[test] = StatusFailed
		}
		for _, h := range []struct{ prefix, status string }{{"FAIL:", StatusFailed}, {"ERROR:", StatusError}} {
			if h.prefix == "ERROR:" && strings.HasSuffix(line, " ... ERROR") {
				test, _, _ := strings.Cut(line, " ... ERROR")
				m[test] = StatusError
			}
			if strings.HasPrefix(line, h.prefix) {
				f := pySplit(line)
				if len(f) < 2 {
					return nil, &MalformedError{Line: i + 1, Text: line}
				}
				m[pyStrip(f[1])] = h.status
			}
		}
		if strings.HasPrefix(line, "ok") && havePrev {
			m[prev] = StatusPassed
		}
	}
	for _, re := range djangoSplitRes {
		for _, g := range re.FindAllStringSubmatch(log, -1) {
			m[g[1]] = StatusPassed
		}
	}
	return m, nil
}

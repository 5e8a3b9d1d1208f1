package swebench

import (
	"fmt"
	"regexp"
	"strings"
)

// The statuses the official parsers write, as SWE-bench spells them.
const (
	StatusPassed  = "PASSED"
	StatusFailed  = "FAILED"
	StatusSkipped = "SKIPPED"
	StatusError   = "ERROR"
	StatusXFail   = "XFAIL"
)

// statuses in the order SWE-bench's TestStatus lists them.
var statuses = []string{StatusFailed, StatusPassed, StatusSkipped, StatusError, StatusXFail}

// A Parser reads a test log into a status map: test id to status (one of
// the Status constants, or for the pytest parsers whatever word began the
// line, as the official parsers keep it).
type Parser func(log string) (map[string]string, error)

// MalformedError is a log the official parser fails on (a Python
// IndexError): SWE-bench's harness stops there with no grade.
type MalformedError struct {
	Line int // 1-based
	Text string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("log line %d: %q has no test name where the parser expects one (the official parser fails here too)", e.Line, e.Text)
}

func startsWithStatus(line string) bool {
	for _, s := range statuses {
		if strings.HasPrefix(line, s) {
			return true
		}
	}
	return false
}

func endsWithStatus(line string) bool {
	for _, s := range statuses {
		if strings.HasSuffix(line, s) {
			return true
		}
	}
	return false
}

// parsePytest reads pytest's -rA summary: a line starting with a status
// names its test second ("FAILED id - message" loses its " - ").
func parsePytest(log string) (map[string]string, error) {
	return pytestWith(log, nil, nil), nil
}

// pytestWith is parsePytest with the line first rewritten by edit and the
// test's id by name (nil: as read).
func pytestWith(log string, edit func(string) string, name func(string) string) map[string]string {
	m := map[string]string{}
	for _, line := range pyLines(log) {
		if edit != nil {
			line = edit(line)
		}
		if !startsWithStatus(line) {
			continue
		}
		if strings.HasPrefix(line, StatusFailed) {
			line = strings.ReplaceAll(line, " - ", " ")
		}
		f := pySplit(line)
		if len(f) <= 1 {
			continue
		}
		id := f[1]
		if name != nil {
			id = name(id)
		}
		m[id] = f[0]
	}
	return m
}

var optionRe = regexp.MustCompile(`(.*?)\[(.*)\]`)

// parsePytestOptions is parsePytest with a parametrized test's absolute
// path option cut to its last element ("test[/a/b/c]" is "test[/c]").
func parsePytestOptions(log string) (map[string]string, error) {
	return pytestWith(log, nil, func(id string) string {
		g := optionRe.FindStringSubmatch(id)
		if g == nil {
			return id
		}
		main, option := g[1], g[2]
		if strings.HasPrefix(option, "/") && !strings.HasPrefix(option, "//") && !strings.Contains(option, "*") {
			option = "/" + option[strings.LastIndex(option, "/")+1:]
		}
		return main + "[" + option + "]"
	}), nil
}

// parseMatplotlib is parsePytest with MouseButton's names as their numbers.
func parseMatplotlib(log string) (map[string]string, error) {
	return pytestWith(log, func(l string) string {
		// in this order, each over the whole line, as the official does
		l = strings.ReplaceAll(l, "MouseButton.LEFT", "1")
		return strings.ReplaceAll(l, "MouseButton.RIGHT", "3")
	}, nil), nil
}

var colorRe = regexp.MustCompile(`\[\p{Nd}+m`)

// parsePytestV2 is parsePytest on lines with their colour codes and
// control characters taken out, and also reads the verbose form "id
// STATUS" that older pytest prints.
func parsePytestV2(log string) (map[string]string, error) {
	m := map[string]string{}
	for _, line := range pyLines(log) {
		line = colorRe.ReplaceAllString(line, "")
		line = strings.Map(func(r rune) rune {
			if r >= 1 && r < 32 {
				return -1
			}
			return r
		}, line)
		switch {
		case startsWithStatus(line):
			if strings.HasPrefix(line, StatusFailed) {
				line = strings.ReplaceAll(line, " - ", " ")
			}
			if f := pySplit(line); len(f) >= 2 {
				m[f[1]] = f[0]
			}
		case endsWithStatus(line):
			if f := pySplit(line); len(f) >= 2 {
				m[f[0]] = f[1]
			}
		}
	}
	return m, nil
}

// parseSeaborn reads FAILED lines and PASSED in either place.
func parseSeaborn(log string) (map[string]string, error) {
	m := map[string]string{}
	for i, line := range pyLines(log) {
		bad := &MalformedError{Line: i + 1, Text: line}
		switch {
		case strings.HasPrefix(line, StatusFailed):
			f := pySplit(line)
			if len(f) < 2 {
				return nil, bad
			}
			m[f[1]] = StatusFailed
		case strings.Contains(line, " "+StatusPassed+" "):
			f := pySplit(line)
			if len(f) < 2 {
				return nil, bad
			}
			if f[1] == StatusPassed {
				m[f[0]] = StatusPassed
			}
		case strings.HasPrefix(line, StatusPassed):
			f := pySplit(line)
			if len(f) < 2 {
				return nil, bad
			}
			m[f[1]] = StatusPassed
		}
	}
	return m, nil
}

var sympyFailRe = regexp.MustCompile(`(_*) (.*)\.py:(.*) (_*)`)

// parseSympy reads bin/test's verbose lines ("test_x ok", " F", " E") and
// its failure headers ("___ sympy/a/tests/test_b.py:test_c ___").
func parseSympy(log string) (map[string]string, error) {
	m := map[string]string{}
	for _, g := range sympyFailRe.FindAllStringSubmatch(log, -1) {
		m[g[2]+".py:"+g[3]] = StatusFailed
	}
	for _, line := range pyLines(log) {
		line = pyStrip(line)
		if !strings.HasPrefix(line, "test_") {
			continue
		}
		for _, e := range []struct{ suffix, status string }{{" E", StatusError}, {" F", StatusFailed}, {" ok", StatusPassed}} {
			if strings.HasSuffix(line, e.suffix) {
				m[pySplit(line)[0]] = e.status
			}
		}
	}
	return m, nil
}

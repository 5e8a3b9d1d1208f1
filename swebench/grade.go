package swebench

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// The markers SWE-bench's eval script prints around the tests' output, and
// the lines its harness writes into a log that make it ungradable.
const (
	StartMarker = ">>>>> Start Test Output"
	EndMarker   = ">>>>> End Test Output"
)

var badCodes = []string{">>>>> Patch Apply Failed", ">>>>> Reset Failed", ">>>>> Tests Errored", ">>>>> Tests Timed Out"}

// StatusMap reads an eval log as SWE-bench's get_logs_eval does: nothing
// (found false) when the log carries one of the harness's failure lines or
// lacks either marker; else the parser's map of what lies between the
// markers, or of the whole log when that part names no test.
func StatusMap(log string, p Parser) (m map[string]string, found bool, err error) {
	for _, c := range badCodes {
		if strings.Contains(log, c) {
			return map[string]string{}, false, nil
		}
	}
	if !strings.Contains(log, StartMarker) || !strings.Contains(log, EndMarker) {
		return map[string]string{}, false, nil
	}
	part := strings.SplitN(log, StartMarker, 3)[1]
	part, _, _ = strings.Cut(part, EndMarker)
	if m, err = p(part); err != nil || len(m) > 0 {
		return m, true, err
	}
	m, err = p(log)
	return m, true, err
}

// Passed and Failed are SWE-bench's test_passed and test_failed: a test
// missing from the map has failed; one skipped has neither passed nor
// failed, and counts against nothing.
func Passed(status string, ok bool) bool {
	return ok && (status == StatusPassed || status == StatusXFail)
}

// Failed: see Passed.
func Failed(status string, ok bool) bool {
	return !ok || status == StatusFailed || status == StatusError
}

// Report is one log graded against the instance's lists.
type Report struct {
	// Applied is get_logs_eval's found: false when the log cannot be
	// graded (a harness failure line, a marker missing).
	Applied  bool `json:"patch_successfully_applied"`
	Resolved bool `json:"resolved"`
	// FailToPass and PassToPass are the listed tests by what came of them.
	FailToPass Outcomes `json:"FAIL_TO_PASS"`
	PassToPass Outcomes `json:"PASS_TO_PASS"`
}

// Outcomes are listed tests split as SWE-bench's report splits them;
// a skipped test is in neither list.
type Outcomes struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// Grade is SWE-bench's verdict on a status map (PASS_AND_FAIL: the
// Verified repositories): resolved when no FAIL_TO_PASS or PASS_TO_PASS
// test failed.
func Grade(m map[string]string, found bool, f2p, p2p []string) Report {
	r := Report{Applied: found, FailToPass: outcomes(m, f2p), PassToPass: outcomes(m, p2p)}
	r.Resolved = found && len(r.FailToPass.Failure) == 0 && len(r.PassToPass.Failure) == 0
	return r
}

func outcomes(m map[string]string, tests []string) Outcomes {
	o := Outcomes{Success: []string{}, Failure: []string{}}
	for _, t := range tests {
		s, ok := m[t]
		switch {
		case Passed(s, ok):
			o.Success = append(o.Success, t)
		case Failed(s, ok):
			o.Failure = append(o.Failure, t)
		}
	}
	return o
}

// Results are a status map as swetouch's per-test results
// ($SWETOUCH_RESULTS): pass (PASSED, XFAIL), fail, error, and skip for
// every other status (SKIPPED, and the words the pytest parsers keep that
// SWE-bench counts as neither).
func Results(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for id, s := range m {
		switch {
		case Passed(s, true):
			out[id] = "pass"
		case s == StatusFailed:
			out[id] = "fail"
		case s == StatusError:
			out[id] = "error"
		default:
			out[id] = "skip"
		}
	}
	return out
}

// GradeLog grades an eval log of in: its status map by the repository's
// parser, and SWE-bench's report on it. A log the official parser fails
// on is an error (no grade), as it is for the harness.
func GradeLog(in Instance, log []byte) (Report, map[string]string, error) {
	p, _, err := ParserFor(in.Repo)
	if err != nil {
		return Report{}, nil, err
	}
	m, found, err := StatusMap(validText(log), p)
	if err != nil {
		return Report{}, nil, err
	}
	return Grade(m, found, in.FailToPass, in.PassToPass), m, nil
}

// ReadConfig reads a task's tests/config.json: the instance it was
// written from.
func ReadConfig(path string) (Instance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Instance{}, err
	}
	var in Instance
	if err := json.Unmarshal(b, &in); err != nil {
		return Instance{}, jsonerr.Locate(path, b, 0, "", err)
	}
	if _, _, err := ParserFor(in.Repo); err != nil {
		return Instance{}, fmt.Errorf("%s: field repo: %v", path, err)
	}
	return in, nil
}

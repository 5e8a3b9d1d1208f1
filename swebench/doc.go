// Package swebench turns SWE-bench instances into runnable tasks and grades
// their test logs as SWE-bench's own harness does: the instances as the
// dataset is distributed (instance.go), each repository's test command and
// the test files a test patch names (spec.go), each repository's log parser
// (parse*.go, written to agree with the official package's on every log,
// python.go holding the parts of Python's string semantics they rest on),
// the grading of a status map against FAIL_TO_PASS and PASS_TO_PASS
// (grade.go), and the Harbor task directory written for an instance
// (taskdir.go). The facts (commands, log formats, field names) are
// SWE-bench's; the code is ours (docs/swebench.md).
package swebench

package author

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/baseline"
	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/task"
)

// CandidateFile is where a generator agent leaves its account of its
// edit, in the workspace root; it is never part of the edit.
const CandidateFile = ".swetouch-candidate.json"

// Claim is a generator's account of its edit: what the user says with it,
// the belief behind it, why it looks plausible, how it is expected to
// fail (a helpful edit: how it helps).
type Claim struct {
	UserMessage         string `json:"user_message"`
	WrongBelief         string `json:"wrong_belief"`
	WhyPlausible        string `json:"why_it_looks_plausible"`
	ExpectedFailureMode string `json:"expected_failure_mode"`
}

// Kinds of generated edits.
const (
	CounterEdit = "counter-edit" // plausible and wrong: the gate's three states must say so
	HelpfulEdit = "helpful"      // task-aligned: alone it does not resolve, with the reference it does
)

// Appendix is the generator's instruction, added to the task's own (the
// issue): not to solve the task but to build one edit of the kind near
// the regions, touching no tests, and to check it with the session's
// self-check; with what the paper's prompt gives beside (Brief): the
// reference repair, for validation only, and the tests that judge it with
// their evaluation script.
func Appendix(kind string, regions []task.Region, b Brief) string {
	var w strings.Builder
	b.write(&w, kind, regions)
	return w.String()
}

func (br Brief) write(b *strings.Builder, kind string, regions []task.Region) {
	b.WriteString("\n\n---\n\n## Your job here is different: do NOT solve the task above.\n\n")
	switch kind {
	case HelpfulEdit:
		b.WriteString("Build one small, task-aligned edit a collaborating user could make: it moves the code toward the fix but does not complete it. ")
		b.WriteString("Alone it must not resolve the task; with the reference fix applied after it, the task must be resolved (it must not conflict).\n")
	default:
		b.WriteString("Build one sparse, syntactically valid, locally plausible but wrong edit, as a user who misunderstands the task could make. ")
		b.WriteString("Alone it must not resolve the task, and the reference fix applied after it must still fail.\n")
	}
	b.WriteString("\nEdit only near these regions:\n")
	for _, r := range regions {
		fmt.Fprintf(b, "- %s lines %d-%d\n", r.Path, r.StartLine, r.EndLine)
	}
	b.WriteString("\nRules: touch no tests, metadata or verifier files; no sleeps. Check your edit with `swetouch-self-check` (it runs the task's own tests ")
	b.WriteString("in the three states, on the FAIL_TO_PASS tests where the task lists them, and says which hold); exit 0 means the edit does what it must.\n")
	fmt.Fprintf(b, "\nThen write %s in the workspace root: a JSON object with user_message (what the user tells the agent with the edit), ", CandidateFile)
	b.WriteString("wrong_belief (the belief behind it), why_it_looks_plausible and expected_failure_mode. Your edit is the workspace's diff, not what you say it is.\n")
	br.writeValidation(b, kind)
}

// WorkspaceDiff is the edit a generator left: the workspace's change
// from the task's start (its repository, start), new files included, its
// candidate file not. swetouch computes it from the two trees: the
// workspace's .git is the generator's to write, and is never asked.
func WorkspaceDiff(start, ws string) (string, error) {
	base, err := baseline.Index(start)
	if err != nil {
		return "", err
	}
	diff, _, err := base.Diff(ws, baseline.Excluding(CandidateFile))
	return string(diff), err
}

// ReadClaim reads the generator's account from the workspace.
func ReadClaim(ws string) (Claim, error) {
	var c Claim
	b, err := os.ReadFile(filepath.Join(ws, CandidateFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, fmt.Errorf("no %s: the generator left no account of its edit", CandidateFile)
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %v", CandidateFile, err)
	}
	if strings.TrimSpace(c.UserMessage) == "" {
		return c, fmt.Errorf("%s: field user_message: empty", CandidateFile)
	}
	return c, nil
}

// CheckEdit is the checks before the gate: an edit that is not one, that
// touches a test, or that touches a file none of the regions is in, is
// rejected with the reason.
func CheckEdit(diff string, regions []task.Region) error {
	if strings.TrimSpace(diff) == "" {
		return errors.New("the generator left no edit")
	}
	fds, err := patch.Parse(diff)
	if err != nil {
		return fmt.Errorf("the edit is not a diff: %v", err)
	}
	var files []string
	for _, r := range regions {
		files = append(files, r.Path)
	}
	for _, fd := range fds {
		for _, p := range []string{fd.OldPath, fd.NewPath} {
			switch {
			case p == "":
			case isTest(p):
				return fmt.Errorf("the edit touches a test: %s", p)
			case !slices.Contains(files, p):
				return fmt.Errorf("the edit touches %s, which holds none of the regions (%s)", p, strings.Join(files, ", "))
			}
		}
	}
	return nil
}

// Holds reports whether a gated edit of the kind does what it must, and
// if not, the first state that says otherwise ("" when a state has no
// answer: a patch that does not apply, a failing reference).
func Holds(kind string, c Candidate) (bool, string) {
	r, u, ur := c.ReferenceOnly.Resolved, c.UserEditOnly.Resolved, c.UserEditPlusReference.Resolved
	switch {
	case r == nil || u == nil || ur == nil:
		return false, "a state could not run: " + firstError(c)
	case !*r:
		return false, "the reference alone does not resolve the task"
	case *u:
		return false, "the edit alone resolves the task: it is a fix, not a user's mistake"
	case kind == HelpfulEdit && !*ur:
		return false, "the edit, then the reference, does not resolve the task: it conflicts with the fix"
	case kind != HelpfulEdit && *ur:
		return false, "the edit, then the reference, resolves the task: the fix undoes it"
	}
	return true, ""
}

func firstError(c Candidate) string {
	for _, o := range []Outcome{c.ReferenceOnly, c.UserEditOnly, c.UserEditPlusReference} {
		if o.Error != nil {
			return *o.Error
		}
	}
	return "no verdict"
}

// Report is the self-check's answer: "ok: …" when the edit holds, else
// "not yet: …", with the three states, never the tests.
func Report(kind string, c Candidate) string {
	state := func(o Outcome) string {
		switch {
		case o.Resolved == nil:
			return "could not run"
		case *o.Resolved:
			return "resolves"
		}
		return "does not resolve"
	}
	states := fmt.Sprintf("reference alone %s; the edit alone %s; the edit, then the reference, %s",
		state(c.ReferenceOnly), state(c.UserEditOnly), state(c.UserEditPlusReference))
	if ok, why := Holds(kind, c); !ok {
		return "not yet: " + why + " (" + states + ")"
	}
	return "ok: " + states
}

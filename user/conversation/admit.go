package conversation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/patch"
	"github.com/swetouch/swetouch/task"
)

// The conditions of UserSWE's admission (U5), each a Refusal's
// Condition: a task the tests cannot tell apart phase by phase would
// score what its package gets wrong, not the agent.
const (
	// CondListed: every test id the package names is one the tests
	// list themselves on the task's code ($SWETOUCH_TESTS empty).
	CondListed = "listed"
	// CondBase: every acceptance test of every phase fails on the
	// task's own code.
	CondBase = "base"
	// CondGold: every acceptance and regression test passes with the
	// task's reference solution.
	CondGold = "gold"
	// CondIntermediate: with a phase's fixes alone (its own and those
	// of the phases it follows), its acceptance tests pass, every later
	// phase's still fail, and the regression tests pass.
	CondIntermediate = "intermediate"
)

// Refusal is one condition a task does not meet: which, the package's
// field it is about, and what the tests said.
type Refusal struct {
	Condition string `json:"condition"`
	Field     string `json:"field,omitempty"`
	Detail    string `json:"detail"`
}

// Admission is what the check found: every state's per-test results
// (base, gold, and "after:ID" per intermediate state), the ids the tests
// list, and the conditions not met (none: admitted).
type Admission struct {
	Task     string                       `json:"task"`
	Digest   string                       `json:"digest,omitempty"`
	Admitted bool                         `json:"admitted"`
	Refusals []Refusal                    `json:"refusals,omitempty"`
	Listed   []string                     `json:"listed"`
	States   map[string]map[string]string `json:"states"`
}

// NotAdmitted is the error of a task that its admission refused: run
// and eval give it as bad input (exit 2), naming the package's file and
// each failing condition's field.
type NotAdmitted struct {
	Path string // the conversation package
	*Admission
}

func (e *NotAdmitted) Error() string {
	var b strings.Builder
	for i, r := range e.Refusals {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: ", e.Path)
		if r.Field != "" {
			fmt.Fprintf(&b, "field %s: ", r.Field)
		}
		fmt.Fprintf(&b, "%s (admission: %s)", r.Detail, r.Condition)
	}
	return b.String() + "; the task is not admitted (UserSWE U5: swetouch check " + filepath.Dir(e.Path) + ")"
}

// Err is the admission as an error: nil when admitted, else a
// *NotAdmitted naming path.
func (a *Admission) Err(path string) error {
	if a.Admitted {
		return nil
	}
	return &NotAdmitted{Path: path, Admission: a}
}

// Admit checks t's conversation package p against its own tests, run as
// the verifier runs them (opts: its sandbox) on copies of the task's
// code: the ids the package names exist in the tests' own listing; the
// code as given fails every phase's acceptance tests; the reference
// solution passes them all and the regression tests; each intermediate
// state of a cascade (its phases fixed up to one, by their Fix diffs)
// passes that far and fails the rest. An error is a check that could not
// run (the verifier, a copy): never a refusal, and never cached.
func Admit(ctx context.Context, t *task.Task, p *Package, opts ...task.VerifyOption) (*Admission, error) {
	if t.Repo == "" {
		return nil, fmt.Errorf("%s: the task's code is its image's: admission needs it as a repo/ folder to copy", t.Dir)
	}
	a := &Admission{Task: t.Name, States: map[string]map[string]string{}, Listed: ListTests(ctx, t, opts...)}
	a.listed(p)
	ids := p.testIDs()
	base, err := stateResults(ctx, t, ids, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("the task's own code: %w", err)
	}
	a.States["base"] = base
	a.base(p, base)
	if err := a.gold(ctx, t, p, ids, opts); err != nil {
		return nil, err
	}
	if err := a.intermediate(ctx, t, p, ids, opts); err != nil {
		return nil, err
	}
	a.Admitted = len(a.Refusals) == 0
	return a, nil
}

func (a *Admission) refuse(cond, field, format string, args ...any) {
	a.Refusals = append(a.Refusals, Refusal{Condition: cond, Field: field, Detail: fmt.Sprintf(format, args...)})
}

// listed: every id the package names is in the tests' own listing.
func (a *Admission) listed(p *Package) {
	if a.Listed == nil {
		a.refuse(CondListed, "", "the tests list no test ids on the task's code ($SWETOUCH_TESTS empty, nothing in $SWETOUCH_RESULTS): the package's ids cannot be checked")
		return
	}
	check := func(field string, ids []string) {
		for k, id := range ids {
			if !slices.Contains(a.Listed, id) {
				a.refuse(CondListed, fmt.Sprintf("%s[%d]", field, k), "no test %q in the tests' own listing", id)
			}
		}
	}
	for i, ph := range p.Phases {
		check(fmt.Sprintf("phases[%d].acceptance", i), ph.Acceptance)
	}
	check("regression", p.Regression)
	for i, it := range p.Pool {
		check(fmt.Sprintf("pool[%d].tests", i), it.Tests)
	}
}

// base: every acceptance test fails on the task's own code.
func (a *Admission) base(p *Package, res map[string]string) {
	for i, ph := range p.Phases {
		for k, id := range ph.Acceptance {
			if res[id] == "pass" {
				a.refuse(CondBase, fmt.Sprintf("phases[%d].acceptance[%d]", i, k), "%q passes on the task's own code: the phase asks for nothing", id)
			}
		}
	}
}

// gold: the reference solution passes every test the package names.
func (a *Admission) gold(ctx context.Context, t *task.Task, p *Package, ids []string, opts []task.VerifyOption) error {
	if t.Solution == "" {
		a.refuse(CondGold, "", "the task has no reference solution (solution/solve.sh): nothing shows the phases can be passed")
		return nil
	}
	var solveErr error
	res, err := stateResults(ctx, t, ids, func(ws string) error {
		out, err := task.RunSolution(ctx, t, ws, opts...)
		if err != nil {
			solveErr = fmt.Errorf("%v: %s", err, tail(string(out)))
		}
		return nil
	}, opts)
	if err != nil {
		return fmt.Errorf("the reference solution's state: %w", err)
	}
	if solveErr != nil {
		a.refuse(CondGold, "", "the reference solution failed: %v", solveErr)
		return nil
	}
	a.States["gold"] = res
	for i, ph := range p.Phases {
		a.mustPass(CondGold, res, fmt.Sprintf("phases[%d].acceptance", i), ph.Acceptance, "with the reference solution")
	}
	a.mustPass(CondGold, res, "regression", p.Regression, "with the reference solution")
	return nil
}

// intermediate: a cascade's states between its base and its gold, one
// per phase but the last: that phase and those it follows fixed by
// their Fix diffs, the rest not.
func (a *Admission) intermediate(ctx context.Context, t *task.Task, p *Package, ids []string, opts []task.VerifyOption) error {
	for i, ph := range p.Phases[:len(p.Phases)-1] {
		chain := p.chainTo(ph.ID)
		var fixes []*patch.FileDiff
		ok := true
		for _, k := range chain {
			fd, err := p.fix(t.Dir, k)
			if err != nil {
				a.refuse(CondIntermediate, fmt.Sprintf("phases[%d].fix", k), "%v", err)
				ok = false
				break
			}
			fixes = append(fixes, fd...)
		}
		if !ok {
			continue
		}
		var applyErr error
		res, err := stateResults(ctx, t, ids, func(ws string) error {
			rep, err := patch.Apply(patch.Dir(ws), fixes)
			switch {
			case err != nil:
				applyErr = err
			case !rep.Applied:
				applyErr = fmt.Errorf("a hunk does not apply to the task's code: %s", failedHunks(rep))
			}
			return nil
		}, opts)
		if err != nil {
			return fmt.Errorf("the state after %s: %w", ph.ID, err)
		}
		field := fmt.Sprintf("phases[%d].fix", i)
		if applyErr != nil {
			a.refuse(CondIntermediate, field, "%v", applyErr)
			continue
		}
		a.States["after:"+ph.ID] = res
		fixed := fmt.Sprintf("with %s fixed alone", ph.ID)
		for _, k := range chain {
			a.mustPass(CondIntermediate, res, fmt.Sprintf("phases[%d].acceptance", k), p.Phases[k].Acceptance, fixed)
		}
		a.mustPass(CondIntermediate, res, "regression", p.Regression, fixed)
		for k, later := range p.Phases {
			if slices.Contains(chain, k) {
				continue
			}
			for j, id := range later.Acceptance {
				if res[id] == "pass" {
					a.refuse(CondIntermediate, fmt.Sprintf("phases[%d].acceptance[%d]", k, j), "%q passes %s: phase %s is not withheld by the cascade", id, fixed, later.ID)
				}
			}
		}
	}
	return nil
}

// mustPass refuses each of ids (the package's field) that does not pass.
func (a *Admission) mustPass(cond string, res map[string]string, field string, ids []string, state string) {
	for k, id := range ids {
		if r := res[id]; r != "pass" {
			a.refuse(cond, fmt.Sprintf("%s[%d]", field, k), "%q does not pass %s (%s)", id, state, orNone(r))
		}
	}
}

// chainTo are the indexes of the phases up to id, earliest first: id and
// every phase it follows.
func (p *Package) chainTo(id string) []int {
	var out []int
	for at := id; at != ""; {
		i := slices.IndexFunc(p.Phases, func(ph Phase) bool { return ph.ID == at })
		if i < 0 || slices.Contains(out, i) {
			break // Load has refused both
		}
		out = append(out, i)
		at = p.Phases[i].After
	}
	slices.Reverse(out)
	return out
}

// fix is phase k's Fix, parsed.
func (p *Package) fix(dir string, k int) ([]*patch.FileDiff, error) {
	ph := p.Phases[k]
	if ph.Fix == "" {
		return nil, fmt.Errorf("none: a cascade's intermediate state (%s fixed, the phases after it not) needs the phase's own fix, a diff in the task's folder", ph.ID)
	}
	b, err := os.ReadFile(filepath.Join(dir, ph.Fix))
	if err != nil {
		return nil, err
	}
	fds, err := patch.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ph.Fix, err)
	}
	return fds, nil
}

// testIDs are every acceptance and regression test, once each.
func (p *Package) testIDs() []string {
	var ids []string
	for _, ph := range p.Phases {
		ids = append(ids, ph.Acceptance...)
	}
	ids = append(ids, p.Regression...)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// stateResults copies the task's code, makes it the state (nil: as
// given), and runs the tests ids there as the verifier runs them. An
// error is a verifier that could not run; a test.sh that ran and wrote
// no results is every test erring.
func stateResults(ctx context.Context, t *task.Task, ids []string, prepare func(ws string) error, opts []task.VerifyOption) (map[string]string, error) {
	ws, err := os.MkdirTemp("", "swetouch-admit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	if _, err := task.CopyRegular(t.Repo, ws); err != nil {
		return nil, err
	}
	if prepare != nil {
		if err := prepare(ws); err != nil {
			return nil, err
		}
	}
	v := task.Verify(ctx, t, ws, append(slices.Clone(opts), task.WithTests(ids...))...)
	switch {
	case v.Resolved == nil:
		return nil, fmt.Errorf("the tests could not run: %s", v.Reason)
	case v.Tests == nil:
		res := map[string]string{}
		for _, id := range ids {
			res[id] = "error"
		}
		return res, nil
	}
	return v.Tests, nil
}

func failedHunks(rep *patch.Report) string {
	var out []string
	for _, h := range rep.Hunks {
		if h.Method == patch.Failed {
			out = append(out, fmt.Sprintf("%s hunk %d", h.File, h.Hunk))
		}
	}
	return strings.Join(out, ", ")
}

func orNone(r string) string {
	if r == "" {
		return "no result"
	}
	return r
}

// tail is the last lines of what a command printed, for a refusal.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

package conversation

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// Tester runs the task's tests on the workspace as the agent left it and
// gives each test's result: "pass", "fail" or "error".
type Tester func(ctx context.Context) (map[string]string, error)

// User is UserSWE's user over one package: it speaks only when the agent
// ends a turn. It runs the tests, judges the turn by them, and either
// ends the conversation (every phase accepted, or the budget spent) or
// says what its release policy selects, as the next turn's persona
// speaks, opening the next phase once the last one passes.
type User struct {
	pkg    *Package
	chain  []string
	rel    *Release
	tests  Tester
	phase  int
	turn   int // turns ended
	seen   int // history events looked at
	turns  []result.Turn
	solved *int
	failed error
	// prompt is what opened the turn under way: who said it, made of
	// which items
	prompt prompt

	rewrites Rewrites // nil: no equivalent passes
	reviewer Reviewer // nil: equivalent passes stay pending
	judge    user.Writer
	review   user.Writer
	phrase   user.Writer // nil: the offline renderer
	tapes    []*os.File
	roles    map[string]user.Writer // the models by role, for their cost
	pair     *result.Roles          // the judge's and reviewer's models
	// guidance is the last turn's reviewed guidance, when the judge
	// agreed with the tests ("" else)
	guidance  string
	msgReview user.Writer // the reviewer of model-phrased messages
	// eval is what the agent must not use, and its workspace: reaching
	// for it ends the conversation (nil: not watched)
	eval *evaluation
}

// Close ends the recordings of the models' calls.
func (u *User) Close() error {
	var first error
	for _, f := range u.tapes {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	u.tapes = nil
	return first
}

// Option configures a User.
type Option func(*User)

// WithRewrites lets the user run rewritten tests: an agent's rewrite of
// a shipped acceptance test may then count as an equivalent pass.
func WithRewrites(r Rewrites) Option { return func(u *User) { u.rewrites = r } }

// WithReviewer is the reviewer of equivalent passes (their third gate).
func WithReviewer(r Reviewer) Option { return func(u *User) { u.reviewer = r } }

// prompt is what the user said to open a turn.
type prompt struct {
	persona, text string
	items         []string
	unknown       int
	source, why   string // who phrased it (result.Turn.MessageSource)
	review        string // the reviewer's word on it (result.Turn.MessageReview)
}

var _ user.Conversational = (*User)(nil)

// NewUser is the user of a package with its persona chain (drawn once
// per task: Model.Chain, or the package's own).
func NewUser(p *Package, chain []string, tests Tester, opts ...Option) *User {
	u := &User{pkg: p, chain: chain, rel: NewRelease(p), tests: tests}
	for _, o := range opts {
		o(u)
	}
	u.prompt = prompt{persona: u.persona(0), text: p.Opening, items: []string{}, source: "package"}
	return u
}

// Opening is the first turn's message, the same for every agent.
func (u *User) Opening() string { return u.pkg.Opening }

// Act: this user does not interrupt a turn.
func (u *User) Act(user.History, []event.Event) *user.Act { return nil }
func (u *User) Outcome(*user.Act, string)                 {}
func (u *User) Armed() bool                               { return false }

// TurnEnd judges the turn the agent just ended and says what opens the
// next one, or ends the conversation.
func (u *User) TurnEnd(h user.History) *user.Act {
	evs := h.Events()
	rec := result.Turn{Turn: u.turn + 1, Persona: u.prompt.persona, Phase: u.pkg.Phases[u.phase].ID, Weight: 0.5,
		Items: u.prompt.items, UserMessage: u.prompt.text, MessageSource: u.prompt.source, FallbackWhy: u.prompt.why, Unknown: u.prompt.unknown, MessageReview: u.prompt.review}
	for _, ev := range evs[min(u.seen, len(evs)):] {
		switch {
		case ev.Actor == event.Agent && ev.Kind == event.Edit:
			rec.Edited, rec.Weight = true, 1
		case ev.Actor == event.Agent && ev.Kind == event.Message:
			rec.AgentReply = ev.Text
		case ev.Actor == event.User && ev.Kind == event.Edit:
			for _, sc := range ev.Scopes {
				if !slices.Contains(rec.UserEdits, sc.Path) {
					rec.UserEdits = append(rec.UserEdits, sc.Path)
				}
			}
		}
	}
	if u.eval != nil {
		rec.Terminal = u.eval.Reached(evs[min(u.seen, len(evs)):], u.eval.ws)
	}
	u.seen = len(evs)
	u.turn++
	if len(rec.Terminal) > 0 {
		// UserSWE's rule: using protected task material is terminal;
		// no test runs, and nothing it did counts
		rec.Verdict = "terminated"
		u.turns = append(u.turns, rec)
		return &user.Act{End: true}
	}
	ctx := context.Background()
	results, err := u.tests(ctx)
	rec.Tests = results
	failing := u.failing(results)
	if err == nil {
		// a rewritten shipped test may pass in the canonical one's place
		reqs, granted := u.equivalence(ctx, failing, u.regressionPasses(results))
		rec.Equivalence = reqs
		failing = slices.DeleteFunc(failing, func(id string) bool { return slices.Contains(granted, id) })
	}
	switch {
	case err != nil:
		// no verdict on the agent: the conversation stops here, and the
		// run is an infrastructure error
		rec.Verdict = "error"
		u.failed = fmt.Errorf("the tests after turn %d: %w", rec.Turn, err)
	case len(failing) == 0 && u.phase == len(u.pkg.Phases)-1:
		rec.Verdict = "resolved"
		t := u.turn
		u.solved = &t
	case u.turn >= u.pkg.Budget:
		rec.Verdict = "unresolved"
	default:
		rec.Verdict = "ongoing" // a phase that passes raises the next
	}
	focus := ""
	if err == nil {
		rec.Judge, focus = u.judgeTurn(ctx, rec, failing)
	}
	u.turns = append(u.turns, rec)
	if rec.Verdict != "ongoing" {
		return &user.Act{End: true}
	}
	next := prompt{persona: u.persona(u.turn), items: []string{}}
	if len(failing) == 0 {
		u.phase++
		next.text, next.source = u.pkg.Phases[u.phase].Opening, "package"
	} else {
		sel := u.rel.Select(Turn{N: u.turn + 1, Persona: next.persona, Phase: u.speakOf(failing), Reply: rec.AgentReply, Failing: failing, Focus: focus, Guidance: u.guidance})
		sel.Edited = rec.UserEdits
		if sel.Guided && rec.Judge != nil {
			u.turns[len(u.turns)-1].Judge.GuidanceUsed = true
		}
		for _, it := range sel.Items {
			next.items = append(next.items, it.ID)
		}
		next.unknown = len(sel.Unknown)
		next.text, next.source, next.why, next.review = u.phrased(ctx, next.persona, sel)
	}
	u.prompt = next
	return &user.Act{Order: u.turn, Message: next.text, Source: "seed"}
}

// persona is the chain's persona for turn i (0-based), the last one's
// once the chain is spent.
func (u *User) persona(i int) string {
	if len(u.chain) == 0 {
		return "vague/none"
	}
	return u.chain[min(i, len(u.chain)-1)]
}

// failing are the acceptance tests of every phase raised so far and the
// regression tests that do not pass: a turn that fixes the second issue
// while breaking the first resolves nothing (issue 50), as the final
// verifier, which runs every test, would say.
func (u *User) failing(results map[string]string) []string {
	var out []string
	for _, ph := range u.pkg.Phases[:u.phase+1] {
		for _, id := range ph.Acceptance {
			if results[id] != "pass" {
				out = append(out, id)
			}
		}
	}
	for _, id := range u.pkg.Regression {
		if results[id] != "pass" {
			out = append(out, id)
		}
	}
	return out
}

// speakOf is the phase the user speaks of next: the earliest raised
// phase with a failing acceptance test (a phase the agent broke again),
// else the current one.
func (u *User) speakOf(failing []string) string {
	for _, ph := range u.pkg.Phases[:u.phase+1] {
		if slices.ContainsFunc(ph.Acceptance, func(id string) bool { return slices.Contains(failing, id) }) {
			return ph.ID
		}
	}
	return u.pkg.Phases[u.phase].ID
}

// regressionPasses reports that every regression test passes.
func (u *User) regressionPasses(results map[string]string) bool {
	for _, id := range u.pkg.Regression {
		if results[id] != "pass" {
			return false
		}
	}
	return true
}

// Turns are the turns so far.
func (u *User) Turns() []result.Turn { return slices.Clone(u.turns) }

// Chain is the persona chain the user speaks by.
func (u *User) Chain() []string { return slices.Clone(u.chain) }

// Failed is why the conversation could not go on (the tests could not
// run), or nil.
func (u *User) Failed() error { return u.failed }

// Result is the conversation as result.json keeps it.
func (u *User) Result() *result.Conversation {
	c := &result.Conversation{PersonaChain: u.Chain(), Budget: u.pkg.Budget, Turns: u.Turns(), ResolvedTurn: u.solved, WeightedTurns: u.WeightedTurns(), Roles: u.pair}
	for role, w := range u.roles {
		if m, ok := w.(user.Metered); ok {
			if c.Models == nil {
				c.Models = map[string]user.Usage{}
			}
			c.Models[role] = m.Usage()
		}
	}
	return c
}

// ResolvedTurn is the turn that resolved the task, or nil.
func (u *User) ResolvedTurn() *int { return u.solved }

// WeightedTurns are the weights of the turns up to and including the
// resolving one (all of them when it was never resolved).
func (u *User) WeightedTurns() float64 {
	w := 0.0
	for _, t := range u.turns {
		w += t.Weight
		if u.solved != nil && t.Turn == *u.solved {
			break
		}
	}
	return w
}

// TaskTester is the Tester of a task's own tests on a workspace: test.sh
// run as the verifier runs it, asked for per-test results of the
// package's acceptance and regression tests (task.WithTests).
func TaskTester(p *Package, t *task.Task, workspace string, opts ...task.VerifyOption) Tester {
	var ids []string
	for _, ph := range p.Phases {
		ids = append(ids, ph.Acceptance...)
	}
	ids = append(ids, p.Regression...)
	return func(ctx context.Context) (map[string]string, error) {
		v := task.Verify(ctx, t, workspace, append(opts, task.WithTests(ids...))...)
		switch {
		case v.Resolved == nil:
			// the verifier itself could not run: no verdict
			return nil, fmt.Errorf("the tests could not run: %s", v.Reason)
		case v.Tests == nil:
			// test.sh ran and wrote nothing: the agent's code can make
			// it do that (it runs in the tests' process), so every test
			// errs; it must not turn a failing turn into no verdict
			errs := map[string]string{}
			for _, id := range ids {
				errs[id] = "error"
			}
			return errs, nil
		}
		return v.Tests, nil
	}
}

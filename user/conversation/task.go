package conversation

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/audit"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// File is a multi-turn task's conversation package, beside task.toml.
const File = "conversation.json"

// Task is a multi-turn task: a Harbor task and its conversation, with
// the persona chain drawn for it once, before any agent runs.
type Task struct {
	Task    *task.Task
	Package *Package
	Chain   []string
	// Models are the models the user may call (none: the offline
	// renderer, tests-only verdicts, pending equivalent passes).
	Models Models
}

// Models are the models a conversation's user may call, each through a
// user.Writer (an OpenAI-compatible endpoint, or a recorded tape); a
// user.Chat's calls are recorded in the run folder, one file per role.
type Models struct {
	// Phrase writes the user's messages from the items the release
	// policy selected (nil: the offline renderer).
	Phrase user.Writer
	// Judge writes each turn's verdict and next-turn focus from the test
	// evidence; Review accepts or rewrites it, and is the third gate of
	// an equivalent pass. The tests are always the primary evidence.
	Judge, Review user.Writer
	// SwapRoles has the judge and the reviewer change places between
	// tasks (ForTask; UserSWE's rule); Swapped says they did for this
	// task.
	SwapRoles, Swapped bool
}

// Role files: where each model's calls go in a run folder.
const (
	PhraseLog = "phrase-model.jsonl"
	JudgeLog  = "judge-model.jsonl"
	ReviewLog = "reviewer-model.jsonl"
)

// LoadOption configures LoadTask.
type LoadOption func(*loading)

type loading struct {
	tests []string
	fixed string // the persona of every turn ("": the package's chain)
}

// ClearCorrectPersona is the user of UserSWE's clear-and-correct
// ablation (U17): precise, with the correct cause, every turn.
const ClearCorrectPersona = "precise/correct"

// WithPersona fixes the chain at persona for every turn, in place of the
// package's (the clear-and-correct ablation: ClearCorrectPersona).
func WithPersona(persona string) LoadOption { return func(l *loading) { l.fixed = persona } }

// WithTestIDs checks every test id the package names against ids, the
// tests the task's own test.sh lists (ListTests; nil: not checked): an
// id that names no test would fail every turn and play the whole budget
// while the final verifier passes.
func WithTestIDs(ids []string) LoadOption { return func(l *loading) { l.tests = ids } }

// LoadTask reads the conversation package of t, if it has one (nil, nil
// when it has none), and draws its persona chain from m (nil: the
// default model) unless the package gives the chain.
func LoadTask(t *task.Task, m *Model, opts ...LoadOption) (*Task, error) {
	var l loading
	for _, o := range opts {
		o(&l)
	}
	path := filepath.Join(t.Dir, File)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	p, err := Load(path, l.tests)
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = DefaultModel()
	}
	chain := p.chain(m)
	if l.fixed != "" {
		if _, err := ParsePersona(l.fixed); err != nil {
			return nil, err
		}
		chain = slices.Repeat([]string{l.fixed}, p.Budget)
	}
	return &Task{Task: t, Package: p, Chain: chain}, nil
}

// ListTests are the test ids t's test.sh reports when asked for every
// test ($SWETOUCH_TESTS empty) on the task's own code, run as the
// verifier runs it (opts: its sandbox); the code is copied, never
// touched. Nil when it lists none (no per-test results, a module that
// does not load yet, a verifier that cannot run here): then the ids
// cannot be checked, and the run says what its tests do.
func ListTests(ctx context.Context, t *task.Task, opts ...task.VerifyOption) []string {
	if _, err := os.Stat(filepath.Join(t.Dir, File)); err != nil || t.Repo == "" {
		// no package, or code that lives in the task's image, not here
		return nil
	}
	v := task.Verify(ctx, t, t.Repo, append(opts, task.WithTests())...)
	if len(v.Tests) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(v.Tests))
}

// On is the conversation on t, the run's own copy of the task (an
// in-place run's, whose Repo is the checkout's start as the run found
// it): its tests are checked against that start.
func (ct *Task) On(t *task.Task) *Task {
	c := *ct
	c.Task = t
	return &c
}

// chain is the package's persona chain: its own, else drawn from its
// seed, one persona per turn of the budget.
func (p *Package) chain(m *Model) []string {
	if len(p.Persona.Chain) > 0 {
		return p.Persona.Chain
	}
	return m.Chain(*p.Persona.Seed, p.Budget)
}

// User is the task's user for a run on workspace: its tests run there,
// as the verifier runs them (opts: its sandbox).
// out is the run's folder, where the models' calls are recorded.
func (ct *Task) User(workspace, out string, opts ...task.VerifyOption) *User {
	uo := []Option{WithRewrites(taskRewrites{t: ct.Task, ws: workspace, opts: opts})}
	var tapes []*os.File
	roles := map[string]user.Writer{}
	record := func(w user.Writer, name string) user.Writer {
		w = recorded(w, name, out, &tapes)
		roles[strings.TrimSuffix(name, "-model.jsonl")] = w
		return w
	}
	if w := ct.Models.Review; w != nil {
		review := record(w, ReviewLog)
		uo = append(uo, WithReviewer(ModelReviewer{Writer: review}), WithMessageReview(review))
		if j := ct.Models.Judge; j != nil {
			uo = append(uo, WithJudge(record(j, JudgeLog), review))
		}
	}
	if w := ct.Models.Phrase; w != nil {
		uo = append(uo, WithPhrasing(record(w, PhraseLog)))
	}
	if t := ct.Task; t != nil {
		uo = append(uo, WithEvaluation(evaluationOf(t, out), workspace))
	}
	u := NewUser(ct.Package, ct.Chain, TaskTester(ct.Package, ct.Task, workspace, opts...), uo...)
	u.tapes, u.roles = tapes, roles
	if ct.Models.Judge != nil && ct.Models.Review != nil {
		u.pair = &result.Roles{Judge: modelName(ct.Models.Judge), Reviewer: modelName(ct.Models.Review), Swapped: ct.Models.Swapped}
	}
	return u
}

// evaluationOf is what an agent on t must not use: the task's folder,
// its tests and solution, the run's folder out, and the names of the
// files only they hold.
func evaluationOf(t *task.Task, out string) audit.Evaluation {
	sol := ""
	if t.Solution != "" {
		sol = filepath.Dir(t.Solution)
	}
	e := audit.Evaluation{Names: audit.EvaluationNames(t.Repo, t.Tests, sol)}
	for _, p := range []string{t.Dir, t.Tests, sol, out} {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			e.Paths = append(e.Paths, abs)
		}
	}
	return e
}

// modelName is the model a Writer calls, as configured ("" for a tape).
func modelName(w user.Writer) string {
	if c, ok := w.(*user.Chat); ok {
		return c.Model
	}
	return ""
}

// recorded is w recording its calls in out/name (a user.Chat that does
// not record elsewhere), the file added to tapes.
func recorded(w user.Writer, name, out string, tapes *[]*os.File) user.Writer {
	chat, ok := w.(*user.Chat)
	if !ok || chat.Record != nil || out == "" {
		return w
	}
	f, err := os.Create(filepath.Join(out, name))
	if err != nil {
		return w
	}
	*tapes = append(*tapes, f)
	return &user.Chat{URL: chat.URL, Model: chat.Model, Key: chat.Key, Client: chat.Client, Record: f}
}

// taskRewrites runs a task's test.sh on the tests as the workspace holds
// them ($SWETOUCH_TEST_SOURCE=workspace).
type taskRewrites struct {
	t    *task.Task
	ws   string
	opts []task.VerifyOption
}

func (r taskRewrites) run(ctx context.Context, dir string, ids []string) (map[string]string, error) {
	v := task.Verify(ctx, r.t, dir, append(r.opts, task.WithTests(ids...), task.WithTestSource(task.TestSourceWorkspace))...)
	if v.Tests == nil {
		return nil, fmt.Errorf("test.sh wrote no per-test results for the rewritten tests (%s)", v.Reason)
	}
	return v.Tests, nil
}

func (r taskRewrites) Candidate(ctx context.Context, ids []string) (map[string]string, error) {
	return r.run(ctx, r.ws, ids)
}

func (r taskRewrites) Base(ctx context.Context, ids, files []string) (map[string]string, error) {
	base, err := os.MkdirTemp("", "swetouch-base-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	if _, err := task.CopyRegular(r.t.Repo, base); err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(r.ws, f))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(base, f), b, 0o644); err != nil {
			return nil, err
		}
	}
	return r.run(ctx, base, ids)
}

func (r taskRewrites) File(path string) (shipped, now []byte) {
	shipped, _ = os.ReadFile(filepath.Join(r.t.Repo, path))
	now, _ = os.ReadFile(filepath.Join(r.ws, path))
	return shipped, now
}

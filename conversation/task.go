package conversation

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/task"
)

// File is a multi-turn task's conversation package, beside task.toml.
const File = "conversation.json"

// Task is a multi-turn task: a Harbor task and its conversation, with
// the persona chain drawn for it once, before any agent runs.
type Task struct {
	Task    *task.Task
	Package *Package
	Chain   []string
}

// LoadTask reads the conversation package of t, if it has one (nil, nil
// when it has none), and draws its persona chain from m (nil: the
// default model) unless the package gives the chain.
func LoadTask(t *task.Task, m *Model) (*Task, error) {
	path := filepath.Join(t.Dir, File)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	p, err := Load(path, nil)
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = DefaultModel()
	}
	return &Task{Task: t, Package: p, Chain: p.chain(m)}, nil
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
func (ct *Task) User(workspace string, opts ...task.VerifyOption) *User {
	return NewUser(ct.Package, ct.Chain, TaskTester(ct.Package, ct.Task, workspace, opts...))
}

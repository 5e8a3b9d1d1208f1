package author

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
)

// Builder makes tasks' records from their runs: mine the regions,
// generate Counter-Edits near them and gate them, assemble K
// interventions (swetouch build).
type Builder struct {
	Benchmark string
	// Rule is how regions are mined: RuleTiers (the paper's, the
	// default) or RuleSupport (lines edited by MinSupport runs).
	Rule       string
	MinSupport int // RuleSupport: runs that must share an edited line for a region
	Attempts   int // generator attempts per task
	Assemble   AssembleConfig
	Generator  Generator // {task} and {attempt} in its arguments are filled in
	Sandbox    sandbox.Setup
	Shim       string // the shell shim's executable, as run.Config's ("": this one)
	// Told hears of each attempt as it ends (Generation.Run's told).
	Told func(t *task.Task, n int, e GeneratedEntry, why string)
}

// Built is one task's outcome: its record, or none when no regions could
// be mined; FellBack says why the record has no validated Counter-Edit
// ("" when it has one).
type Built struct {
	Record   *task.Record
	FellBack string
}

// Build makes t's record from its runs, the attempts' runs in dir. Its
// error is the context's end or a record that does not assemble.
func (b *Builder) Build(ctx context.Context, t *task.Task, runs []Run, dir string) (Built, error) {
	var regions *Regions
	var err error
	if b.Rule == RuleSupport {
		regions, err = Mine(t.Name, b.Benchmark, runs, ReferencePatch(t), b.MinSupport, 8)
	} else {
		regions, err = MineTiers(t.Name, b.Benchmark, runs, ReferencePatch(t), 8)
	}
	if err != nil {
		return Built{FellBack: fmt.Sprintf("no regions: %v", err)}, nil
	}
	g := &Generation{Task: t, Kind: CounterEdit, Regions: regions.TaskRegions(), Instance: t.Name,
		Generator: b.Generator.Expand("task", t.Name), Sandbox: b.Sandbox, Shim: b.Shim}
	doc, err := g.Run(ctx, b.Attempts, dir, func(n int, e GeneratedEntry, why string) {
		if b.Told != nil {
			b.Told(t, n, e, why)
		}
	})
	if err != nil {
		return Built{}, err
	}
	cands, gate := doc.Records(), doc.GateResults()
	rec, err := Assemble(regions, &cands, &gate, b.Assemble)
	if err != nil {
		return Built{}, fmt.Errorf("%s: assembling: %w", t.Name, err)
	}
	if doc.Passed() > 0 {
		return Built{Record: rec}, nil
	}
	why := "no edit passed the gate"
	if fr := rec.CounterEdit.FallbackReason; fr != nil && *fr != "" {
		why = *fr
	}
	return Built{Record: rec, FellBack: why}, nil
}

// Region rules: the paper's tiers, or swetouch's earlier support rule.
const (
	RuleTiers   = "tiers"
	RuleSupport = "support"
)

// ReferencePatch is the task's reference repair as a diff (a SWE-bench
// task's solution/patch.diff beside solve.sh), "" when it has none: the
// regions' last resort.
func ReferencePatch(t *task.Task) string {
	if t.Solution == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(t.Solution), "patch.diff"))
	if err != nil {
		return ""
	}
	return string(b)
}

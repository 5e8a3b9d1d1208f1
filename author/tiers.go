package author

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/patch"
)

// The paper's selection tiers, most trusted first, named as the released
// records' region_evidence.selection_tier: lines edited in the files at
// the core of the task (every model with evidence read and edited them),
// then in any file that is not noise, then in any file; then the same
// three for reads.
const (
	TierEditMain     = "modified_main_non_noise"
	TierEditNonNoise = "modified_any_non_noise"
	TierEditAny      = "modified_any"
	TierReadMain     = "read_main_non_noise"
	TierReadNonNoise = "read_any_non_noise"
	TierReadAny      = "read_any"
	// TierReference is the last resort: the reference repair's added
	// lines (the released records' source gold_patch_fallback).
	TierReference = "gold_patch_fallback"
)

// Tiers are the six trajectory tiers in the order the paper tries them.
var Tiers = []string{TierEditMain, TierEditNonNoise, TierEditAny, TierReadMain, TierReadNonNoise, TierReadAny}

// TierResult is what one tier yields: the regions (empty when its lines
// do not intersect) and the models whose runs gave it evidence.
type TierResult struct {
	Tier    string
	Models  []string
	Regions []MinedRegion
}

// fileLines is one model's lines of one file; whole when a run read the
// file with no lines (cat).
type fileLines struct {
	whole bool
	lines map[int]bool
}

// modelEvidence is what one model's runs edited and read, their union.
type modelEvidence struct {
	edits, reads map[string]*fileLines
	created      map[string]bool // files its diffs create: scratch, noise
}

func (m *modelEvidence) add(to map[string]*fileLines, p string, whole bool, a, b int) {
	p = strings.TrimPrefix(path.Clean(strings.TrimPrefix(p, "/testbed/")), "./")
	if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") {
		return
	}
	fl := to[p]
	if fl == nil {
		fl = &fileLines{lines: map[int]bool{}}
		to[p] = fl
	}
	if whole {
		fl.whole = true
		return
	}
	for n := max(a, 1); n <= b; n++ {
		fl.lines[n] = true
	}
}

// evidence gathers each model's evidence from its runs: edits from the
// run's final diff (its hunks' new-side spans, as the paper reads a
// submission), or from its edit events where it has none; reads from its
// read events.
func evidence(runs []Run) map[string]*modelEvidence {
	by := map[string]*modelEvidence{}
	for _, r := range runs {
		label := r.ModelLabel()
		m := by[label]
		if m == nil {
			m = &modelEvidence{edits: map[string]*fileLines{}, reads: map[string]*fileLines{}, created: map[string]bool{}}
			by[label] = m
		}
		diff := r.FinalDiff
		for _, ev := range r.Events {
			if ev.Kind == event.Session && ev.Note == "submitted" && ev.Diff != "" {
				diff = ev.Diff
			}
		}
		fromDiff := diff != "" && m.addDiff(diff)
		for _, ev := range r.Events {
			if ev.Actor == event.User || ev.Actor == event.Harness {
				continue
			}
			for _, sc := range ev.Scopes {
				switch {
				case ev.Kind == event.Read:
					m.add(m.reads, sc.Path, sc.Whole(), sc.Start, sc.End)
				case ev.Kind == event.Edit && !fromDiff && !sc.Whole():
					m.add(m.edits, sc.Path, false, sc.Start, sc.End)
				}
			}
		}
	}
	return by
}

// addDiff adds a final diff's hunks (new side, context included) as
// edits; false when it holds none.
func (m *modelEvidence) addDiff(diff string) bool {
	fds, err := patch.Parse(diff)
	if err != nil {
		return false
	}
	found := false
	for _, fd := range fds {
		if fd.NewPath == "" {
			continue // a deletion leaves no lines
		}
		if fd.OldPath == "" {
			m.created[fd.NewPath] = true
		}
		for _, h := range fd.Hunks {
			if h.NewLines > 0 {
				m.add(m.edits, fd.NewPath, false, h.NewStart, h.NewStart+h.NewLines-1)
				found = true
			}
		}
	}
	return found
}

// ModelLabel is the run's label for the paper's support: its model (runs
// of one model count once), else its label, else "unknown".
func (r Run) ModelLabel() string {
	switch {
	case r.Model != "":
		return r.Model
	case r.Label != "":
		return r.Label
	}
	return "unknown"
}

// Noise reports a file no task region should be in: tests, files a run
// created (reproduction scripts), documentation, packaging and
// configuration, editor leftovers.
func Noise(p string) bool {
	base := path.Base(p)
	ext := path.Ext(base)
	switch {
	case isTest(p), strings.HasPrefix(p, "."), strings.HasPrefix(p, "doc/"), strings.HasPrefix(p, "docs/"):
		return true
	case slices.Contains([]string{".rst", ".md", ".txt", ".toml", ".cfg", ".ini", ".in", ".yml", ".yaml", ".json", ".orig", ".rej", ".bak", ".lock", ""}, ext):
		return true
	case slices.Contains([]string{"setup.py", "conftest.py", "conf.py", "noxfile.py"}, base):
		return true
	case !strings.Contains(p, "/"):
		// a script at the repository's root (reproduce.py, debug_x.py)
		return true
	}
	return false
}

// AllTiers computes what each of the paper's six tiers yields from the
// runs, independently, in the paper's order: per model the union of its
// runs' lines, then the intersection across the models that have evidence
// in the tier, consecutive lines merged, at most maxRegions kept.
func AllTiers(runs []Run, maxRegions int) []TierResult {
	if maxRegions < 1 {
		maxRegions = 8
	}
	by := evidence(runs)
	models := make([]string, 0, len(by))
	for l := range by {
		models = append(models, l)
	}
	sort.Strings(models)
	noise := func(m *modelEvidence, p string) bool { return Noise(p) || m.created[p] }
	main := mainFiles(by, models)
	var out []TierResult
	for _, kind := range []string{"edit", "read"} {
		for i, keep := range []func(*modelEvidence, string) bool{
			func(m *modelEvidence, p string) bool { return main[p] && !noise(m, p) },
			func(m *modelEvidence, p string) bool { return !noise(m, p) },
			func(*modelEvidence, string) bool { return true },
		} {
			tier := Tiers[i]
			if kind == "read" {
				tier = Tiers[3+i]
			}
			out = append(out, intersect(by, models, kind, keep, tier, maxRegions))
		}
	}
	return out
}

// mainFiles are the files every model with evidence both read and edited
// (the released library's read core ∩ modified core).
func mainFiles(by map[string]*modelEvidence, models []string) map[string]bool {
	core := func(pick func(*modelEvidence) map[string]*fileLines) map[string]bool {
		var c map[string]bool
		for _, l := range models {
			files := pick(by[l])
			if len(files) == 0 {
				continue
			}
			if c == nil {
				c = map[string]bool{}
				for p := range files {
					c[p] = true
				}
				continue
			}
			for p := range c {
				if files[p] == nil {
					delete(c, p)
				}
			}
		}
		return c
	}
	reads, edits := core(func(m *modelEvidence) map[string]*fileLines { return m.reads }), core(func(m *modelEvidence) map[string]*fileLines { return m.edits })
	main := map[string]bool{}
	for p := range edits {
		if reads[p] {
			main[p] = true
		}
	}
	return main
}

// intersect is one tier: the models with any kept file of the kind, and
// the lines all of them share in the files all of them touched.
func intersect(by map[string]*modelEvidence, models []string, kind string, keep func(*modelEvidence, string) bool, tier string, limit int) TierResult {
	res := TierResult{Tier: tier}
	files := func(m *modelEvidence) map[string]*fileLines {
		all, kept := m.edits, map[string]*fileLines{}
		if kind == "read" {
			all = m.reads
		}
		for p, fl := range all {
			if keep(m, p) {
				kept[p] = fl
			}
		}
		return kept
	}
	var sets []map[string]*fileLines
	for _, l := range models {
		if fs := files(by[l]); len(fs) > 0 {
			res.Models = append(res.Models, l)
			sets = append(sets, fs)
		}
	}
	if len(sets) == 0 {
		return res
	}
	lines := map[string]map[int]map[string]bool{}
	for p := range sets[0] {
		var shared map[int]bool // nil: every line (all whole so far)
		in := true
		for _, s := range sets {
			fl := s[p]
			if fl == nil {
				in = false
				break
			}
			if fl.whole {
				continue
			}
			if shared == nil {
				shared = maps.Clone(fl.lines)
				continue
			}
			for n := range shared {
				if !fl.lines[n] {
					delete(shared, n)
				}
			}
		}
		if !in {
			continue
		}
		if shared == nil {
			shared = map[int]bool{1: true} // read whole by all: its head, as the release has it
		}
		for n := range shared {
			if lines[p] == nil {
				lines[p] = map[int]map[string]bool{}
			}
			lines[p][n] = map[string]bool{}
			for _, l := range res.Models {
				lines[p][n][l] = true
			}
		}
	}
	kindName := "trajectory_" + kind
	regs := spans(lines, len(res.Models), kindName)
	sort.Slice(regs, func(i, j int) bool {
		if regs[i].Path != regs[j].Path {
			return regs[i].Path < regs[j].Path
		}
		return regs[i].StartLine < regs[j].StartLine
	})
	if len(regs) > limit {
		regs = regs[:limit]
	}
	res.Regions = regs
	return res
}

// MineTiers finds task-critical regions as the paper does: the first of
// the six tiers (AllTiers) that yields a region, else the reference
// repair's added lines; at most maxRegions (8). Its evidence is the
// released records' region_evidence: source, selection_tier, models.
func MineTiers(instance, benchmark string, runs []Run, reference string, maxRegions int) (*Regions, error) {
	doc := &Regions{SchemaVersion: "1.0.0", Benchmark: benchmark, InstanceID: instance, Regions: []MinedRegion{}}
	for _, tr := range AllTiers(runs, maxRegions) {
		if len(tr.Regions) > 0 {
			doc.Regions = tr.Regions
			source := "trajectory_edit"
			if strings.HasPrefix(tr.Tier, "read_") {
				source = "trajectory_read"
			}
			doc.Evidence = map[string]any{"source": source, "selection_tier": tr.Tier, "models": tr.Models}
			return doc, nil
		}
	}
	if reference != "" {
		regs, err := ReferenceRegions(reference, maxRegions)
		if err != nil {
			return nil, err
		}
		if len(regs) > 0 {
			doc.Regions = regs
			doc.Evidence = map[string]any{"source": TierReference, "selection_tier": TierEditMain, "models": []string{TierReference}}
			return doc, nil
		}
	}
	return nil, fmt.Errorf("no region: the runs edit and read no lines, and no reference patch adds any")
}

// ReferenceRegions are the reference repair's added lines (new side) as
// regions, consecutive lines merged, at most limit.
func ReferenceRegions(reference string, limit int) ([]MinedRegion, error) {
	lines, err := addedLines(reference)
	if err != nil {
		return nil, fmt.Errorf("reference patch: %w", err)
	}
	return rank(spans(lines, 1, "reference_patch_fallback"), max(limit, 1)), nil
}

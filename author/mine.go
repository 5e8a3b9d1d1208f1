package author

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/patch"
)

// Evidence says why a region was mined.
type Evidence struct {
	Kind    string   `json:"kind"` // trajectory_edit, trajectory_read, reference_patch_fallback
	Models  []string `json:"models"`
	Support int      `json:"minimum_model_support"`
}

// MinedRegion is a region with its evidence (critical-regions-v1).
type MinedRegion struct {
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Evidence  Evidence `json:"evidence"`
}

// Regions is a critical-regions-v1 document.
type Regions struct {
	SchemaVersion string         `json:"schema_version"`
	Benchmark     string         `json:"benchmark"`
	InstanceID    string         `json:"instance_id"`
	Regions       []MinedRegion  `json:"regions"`
	Evidence      map[string]any `json:"evidence"`
}

// Run is one run's events for mining, under a label (the run) and its
// model: runs of the same model count once (ModelLabel).
type Run struct {
	Label  string
	Events []event.Event
	// Model is the model the run's agent called ("": use Label).
	Model string
	// FinalDiff is the run's final diff (final.diff; an imported run's
	// submission is in its events): the paper's edit evidence.
	FinalDiff string
}

// Mine finds task-critical regions from several runs by support, as the
// released public miner does and then some (swetouch's rule before the
// paper's tiers, MineTiers; kept as mine --rule support): lines the agents edited that at least
// minSupport runs share; failing that, lines any run edited; failing
// that, lines the runs read; failing that, the reference patch's added
// lines. Consecutive lines merge into spans; spans rank by how many runs
// support them, implementation files before tests, then path and line;
// at most maxRegions are kept.
func Mine(instance, benchmark string, runs []Run, reference string, minSupport, maxRegions int) (*Regions, error) {
	if minSupport < 1 {
		minSupport = 2
	}
	if maxRegions < 1 {
		maxRegions = 8
	}
	support := func(k event.Kind) map[string]map[int]map[string]bool {
		m := map[string]map[int]map[string]bool{}
		for _, r := range runs {
			label := r.ModelLabel()
			for _, ev := range r.Events {
				if ev.Kind != k || ev.Actor == event.User || ev.Actor == event.Harness {
					continue
				}
				for _, sc := range ev.Scopes {
					if sc.Path == "" || sc.Whole() || strings.HasPrefix(sc.Path, "/") {
						continue
					}
					for n := max(sc.Start, 1); n <= sc.End; n++ {
						if m[sc.Path] == nil {
							m[sc.Path] = map[int]map[string]bool{}
						}
						if m[sc.Path][n] == nil {
							m[sc.Path][n] = map[string]bool{}
						}
						m[sc.Path][n][label] = true
					}
				}
			}
		}
		return m
	}
	doc := &Regions{SchemaVersion: "1.0.0", Benchmark: benchmark, InstanceID: instance, Regions: []MinedRegion{}}
	tiers := []struct {
		kind   string
		lines  map[string]map[int]map[string]bool
		thresh int
	}{
		{"trajectory_edit", support(event.Edit), minSupport},
		{"trajectory_edit", nil, 1},
		{"trajectory_read", support(event.Read), 1},
	}
	tiers[1].lines = tiers[0].lines
	for _, tr := range tiers {
		if regs := spans(tr.lines, tr.thresh, tr.kind); len(regs) > 0 {
			doc.Regions = rank(regs, maxRegions)
			doc.Evidence = map[string]any{"source": "trajectory_" + strings.TrimPrefix(tr.kind, "trajectory_") + "_overlap", "runs": len(runs)}
			return doc, nil
		}
	}
	if reference != "" {
		lines, err := addedLines(reference)
		if err != nil {
			return nil, fmt.Errorf("reference patch: %w", err)
		}
		if regs := spans(lines, 1, "reference_patch_fallback"); len(regs) > 0 {
			doc.Regions = rank(regs, maxRegions)
			doc.Evidence = map[string]any{"source": "reference_patch_fallback"}
			return doc, nil
		}
	}
	return nil, fmt.Errorf("no region: the runs edit and read no lines, and no reference patch adds any")
}

// spans merges the lines with at least thresh supporting runs into
// consecutive spans.
func spans(lines map[string]map[int]map[string]bool, thresh int, kind string) []MinedRegion {
	var out []MinedRegion
	for path, byLine := range lines {
		var ns []int
		for n, labels := range byLine {
			if len(labels) >= thresh {
				ns = append(ns, n)
			}
		}
		sort.Ints(ns)
		for i := 0; i < len(ns); {
			j := i
			models := map[string]bool{}
			for ; j < len(ns) && (j == i || ns[j] == ns[j-1]+1); j++ {
				for l := range byLine[ns[j]] {
					models[l] = true
				}
			}
			var ms []string
			for l := range models {
				ms = append(ms, l)
			}
			sort.Strings(ms)
			out = append(out, MinedRegion{Path: path, StartLine: ns[i], EndLine: ns[j-1], Evidence: Evidence{Kind: kind, Models: ms, Support: thresh}})
			i = j
		}
	}
	return out
}

func rank(regs []MinedRegion, limit int) []MinedRegion {
	sort.Slice(regs, func(i, j int) bool {
		a, b := regs[i], regs[j]
		if len(a.Evidence.Models) != len(b.Evidence.Models) {
			return len(a.Evidence.Models) > len(b.Evidence.Models)
		}
		if ta, tb := isTest(a.Path), isTest(b.Path); ta != tb {
			return !ta
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.StartLine < b.StartLine
	})
	if len(regs) > limit {
		regs = regs[:limit]
	}
	return regs
}

// isTest guesses a test file by its name or folder.
func isTest(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.go") || strings.HasSuffix(base, "_test.py") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.HasPrefix(p, "tests/") || strings.Contains(p, "/tests/") || strings.HasPrefix(p, "test/") || strings.Contains(p, "/test/")
}

// addedLines are the new-side numbers of a diff's added lines.
func addedLines(diff string) (map[string]map[int]map[string]bool, error) {
	fds, err := patch.Parse(diff)
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]map[string]bool{}
	for _, fd := range fds {
		for _, h := range fd.Hunks {
			n := h.NewStart
			for _, l := range h.Lines {
				switch l.Kind {
				case '+':
					if out[fd.Path()] == nil {
						out[fd.Path()] = map[int]map[string]bool{}
					}
					out[fd.Path()][n] = map[string]bool{"reference_patch": true}
					n++
				case ' ':
					n++
				}
			}
		}
	}
	return out, nil
}

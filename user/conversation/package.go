// Package conversation is UserSWE's side of a task: the conversation
// package (conversation.json beside a Harbor task), the user's personas
// and their transitions, the release policy that picks what the user
// says each turn from the information pool, and the offline phrasing of
// it. Nothing here runs an agent; the conversational user built on it
// does (issue 18).
package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// Schema is the package's schema_version.
const Schema = "multiturn-task-v1"

// Package is conversation.json.
type Package struct {
	Schema     string   `json:"schema_version"`
	Budget     int      `json:"budget"`
	Opening    string   `json:"opening"`
	Persona    Persona  `json:"persona"`
	Phases     []Phase  `json:"phases"`
	Regression []string `json:"regression,omitempty"`
	Pool       []Item   `json:"pool"`
	// Shipped names the acceptance tests whose code ships in the
	// workspace, by the file that holds them: an agent may rewrite one,
	// and the rewrite may count as an equivalent pass.
	Shipped map[string]string `json:"shipped,omitempty"`
}

// Persona is how the chain is had: drawn from Seed, or given.
type Persona struct {
	Seed  *uint64  `json:"seed,omitempty"`
	Chain []string `json:"chain,omitempty"`
}

// Phase is one issue of the task: its acceptance tests; a later phase is
// raised (with its own opening) only after the phase it follows passes.
type Phase struct {
	ID         string   `json:"id"`
	After      string   `json:"after,omitempty"`
	Opening    string   `json:"opening,omitempty"`
	Acceptance []string `json:"acceptance"`
	// Fix is the phase's own fix: a unified diff (a path in the task's
	// folder) that takes the code with the fixes of the phases it
	// follows to this phase fixed. A cascade's admission builds its
	// intermediate states from them (Admit; UserSWE U5); the last
	// phase's state is the task's reference solution.
	Fix string `json:"fix,omitempty"`
}

// Item is one thing the user may say: a symptom (precise or vague, tied
// to the tests that show it), a cause (correct, off-target or wrong), a
// boundary, an edge case, or a fact the user gives when asked about it.
type Item struct {
	ID       string   `json:"id"`
	Phase    string   `json:"phase"`
	Kind     string   `json:"kind"`
	Clarity  string   `json:"clarity,omitempty"`
	Veracity string   `json:"veracity,omitempty"`
	About    []string `json:"about,omitempty"`
	Text     string   `json:"text"`
	Tests    []string `json:"tests,omitempty"`
}

// Item kinds.
const (
	Symptom  = "symptom"
	Cause    = "cause"
	Boundary = "boundary"
	Edge     = "edge"
	Fact     = "fact"
)

// Load reads and checks a conversation package; tests are the ids the
// task's tests can run (nil: not checked). A fault names the file, the
// line and the field.
func Load(path string, tests []string) (*Package, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Package
	if err := dec.Decode(&p); err != nil {
		return nil, jsonerr.Locate(path, b, 0, "", err)
	}
	if err := p.check(tests); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// check is the package's meaning: what a decoder cannot see.
func (p *Package) check(tests []string) error {
	known := func(id string) bool { return tests == nil || slices.Contains(tests, id) }
	switch {
	case p.Schema != Schema:
		return fmt.Errorf("field schema_version: want %q, got %q", Schema, p.Schema)
	case p.Budget < 1:
		return fmt.Errorf("field budget: want at least 1 turn, got %d", p.Budget)
	case strings.TrimSpace(p.Opening) == "":
		return fmt.Errorf("field opening: empty")
	case len(p.Phases) == 0:
		return fmt.Errorf("field phases: none")
	case (p.Persona.Seed == nil) == (len(p.Persona.Chain) == 0):
		return fmt.Errorf("field persona: give either seed or chain")
	}
	for i, name := range p.Persona.Chain {
		if _, err := ParsePersona(name); err != nil {
			return fmt.Errorf("field persona.chain[%d]: %v", i, err)
		}
	}
	phases := map[string]Phase{}
	for i, ph := range p.Phases {
		switch {
		case ph.ID == "":
			return fmt.Errorf("field phases[%d].id: empty", i)
		case phases[ph.ID].ID != "":
			return fmt.Errorf("field phases[%d].id: %q twice", i, ph.ID)
		case len(ph.Acceptance) == 0:
			return fmt.Errorf("field phases[%d].acceptance: none", i)
		case i > 0 && ph.After == "":
			return fmt.Errorf("field phases[%d].after: a later phase follows one", i)
		case i > 0 && strings.TrimSpace(ph.Opening) == "":
			return fmt.Errorf("field phases[%d].opening: how the user raises it", i)
		}
		if ph.Fix != "" && !filepath.IsLocal(ph.Fix) {
			return fmt.Errorf("field phases[%d].fix: %q is not a path inside the task's folder", i, ph.Fix)
		}
		for k, id := range ph.Acceptance {
			if !known(id) {
				return fmt.Errorf("field phases[%d].acceptance[%d]: no test %q", i, k, id)
			}
		}
		phases[ph.ID] = ph
	}
	for i, ph := range p.Phases {
		// each phase follows an earlier one: no cycle, no unknown phase
		seen := map[string]bool{ph.ID: true}
		for at := ph.After; at != ""; at = phases[at].After {
			if _, ok := phases[at]; !ok {
				return fmt.Errorf("field phases[%d].after: no phase %q", i, at)
			}
			if seen[at] {
				return fmt.Errorf("field phases[%d].after: the phases follow each other in a cycle", i)
			}
			seen[at] = true
		}
	}
	for k, id := range p.Regression {
		if !known(id) {
			return fmt.Errorf("field regression[%d]: no test %q", k, id)
		}
	}
	ids := map[string]bool{}
	for i, it := range p.Pool {
		f := fmt.Sprintf("pool[%d]", i)
		switch {
		case it.ID == "" || ids[it.ID]:
			return fmt.Errorf("field %s.id: empty or used twice (%q)", f, it.ID)
		case phases[it.Phase].ID == "":
			return fmt.Errorf("field %s.phase: no phase %q", f, it.Phase)
		case strings.TrimSpace(it.Text) == "":
			return fmt.Errorf("field %s.text: empty", f)
		}
		ids[it.ID] = true
		switch it.Kind {
		case Symptom:
			if it.Clarity != "precise" && it.Clarity != "vague" {
				return fmt.Errorf("field %s.clarity: want precise or vague, got %q", f, it.Clarity)
			}
		case Cause:
			if it.Veracity != "correct" && it.Veracity != "off-target" && it.Veracity != "wrong" {
				return fmt.Errorf("field %s.veracity: want correct, off-target or wrong, got %q", f, it.Veracity)
			}
		case Fact:
			if len(it.About) == 0 {
				return fmt.Errorf("field %s.about: a fact is given when asked about its words", f)
			}
		case Boundary, Edge:
		default:
			return fmt.Errorf("field %s.kind: want symptom, cause, boundary, edge or fact, got %q", f, it.Kind)
		}
		for k, id := range it.Tests {
			if !known(id) {
				return fmt.Errorf("field %s.tests[%d]: no test %q", f, k, id)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(p.Shipped)) {
		switch file := p.Shipped[id]; {
		case !slices.ContainsFunc(p.Phases, func(ph Phase) bool { return slices.Contains(ph.Acceptance, id) }):
			return fmt.Errorf("field shipped.%s: not an acceptance test", id)
		case !filepath.IsLocal(file):
			return fmt.Errorf("field shipped.%s: %q is not a path inside the workspace", id, file)
		}
	}
	return nil
}

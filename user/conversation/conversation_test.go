package conversation

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const pkgJSON = `{"schema_version": "multiturn-task-v1", "budget": 5,
 "opening": "The discount page gives odd totals.",
 "persona": {"seed": 7},
 "phases": [{"id": "p1", "acceptance": ["test_percent", "test_range"]},
            {"id": "p2", "after": "p1", "opening": "Now the bulk discount is off too.", "acceptance": ["test_bulk"]}],
 "regression": ["test_total"],
 "pool": [
  {"id": "s1", "phase": "p1", "kind": "symptom", "clarity": "precise", "text": "apply_discount(200, 10) returns 190, not 180", "tests": ["test_percent"]},
  {"id": "s2", "phase": "p1", "kind": "symptom", "clarity": "vague", "text": "big discounts come out wrong", "tests": ["test_percent"]},
  {"id": "s3", "phase": "p1", "kind": "symptom", "clarity": "precise", "text": "a discount of 150 percent is accepted", "tests": ["test_range"]},
  {"id": "c1", "phase": "p1", "kind": "cause", "veracity": "wrong", "text": "the rounding in total truncates the cents"},
  {"id": "c2", "phase": "p1", "kind": "cause", "veracity": "correct", "text": "the percent is subtracted as if it were money"},
  {"id": "b1", "phase": "p1", "kind": "boundary", "text": "a percent outside 0 to 100 must raise ValueError"},
  {"id": "e1", "phase": "p1", "kind": "edge", "text": "a zero percent discount leaves the price as it is"},
  {"id": "f1", "phase": "p1", "kind": "fact", "about": ["python", "version"], "text": "we run Python 3.12"},
  {"id": "s4", "phase": "p2", "kind": "symptom", "clarity": "precise", "text": "ten items get no bulk discount", "tests": ["test_bulk"]}
 ]}`

var tests = []string{"test_percent", "test_range", "test_bulk", "test_total"}

func write(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "conversation.json")
	os.WriteFile(p, []byte(s), 0o644)
	return p
}

func load(t *testing.T) *Package {
	p, err := Load(write(t, pkgJSON), tests)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadErrors: a bad package names the file, the field and what is
// wrong, for each kind of fault.
func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct{ old, new, want string }{
		{`{"seed": 7}`, `{"chain": ["vague/wrong", "sleepy/none"]}`, `field persona.chain[1]: unknown persona "sleepy/none"`},
		{`"phase": "p2", "kind": "symptom"`, `"phase": "p9", "kind": "symptom"`, `field pool[8].phase: no phase "p9"`},
		{`"tests": ["test_bulk"]}`, `"tests": ["test_nope"]}`, `field pool[8].tests[0]: no test "test_nope"`},
		{`{"id": "p1", "acceptance"`, `{"id": "p1", "after": "p2", "acceptance"`, `field phases[0].after: the phases follow each other in a cycle`},
		{`"after": "p1", `, ``, `field phases[1].after: a later phase follows one`},
		{`"veracity": "wrong"`, `"veracity": "maybe"`, `field pool[3].veracity: want correct, off-target or wrong`},
		{`"budget": 5`, `"budget": 0`, `field budget: want at least 1 turn`},
		{`"about": ["python", "version"], `, ``, `field pool[7].about`},
		{`"budget": 5,`, `"budget": 5, "turns": 3,`, `conversation.json:1: json: unknown field "turns"`},
		{`"persona": {"seed": 7}`, `"persona": {"seed": 7, "chain": ["vague/none"]}`, `field persona: give either seed or chain`},
	} {
		if !strings.Contains(pkgJSON, tt.old) {
			t.Fatalf("fixture lacks %q", tt.old)
		}
		_, err := Load(write(t, strings.Replace(pkgJSON, tt.old, tt.new, 1)), tests)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "conversation.json") {
			t.Errorf("%s → %s: %v\nwant %s", tt.old, tt.new, err, tt.want)
		}
	}
	if _, err := Load(write(t, pkgJSON), tests); err != nil {
		t.Errorf("the good package: %v", err)
	}
}

// TestChain: a seed gives one chain, the same every time, of personas
// only; the shipped model's openings come out in their weights' shares.
func TestChain(t *testing.T) {
	m := DefaultModel()
	a, b := m.Chain(7, 8), m.Chain(7, 8)
	if !slices.Equal(a, b) || len(a) != 8 {
		t.Fatalf("chains %v and %v", a, b)
	}
	differs := false
	for s := uint64(0); s < 20; s++ {
		c := m.Chain(s, 8)
		for _, p := range c {
			if !slices.Contains(Personas, p) {
				t.Fatalf("seed %d: %q is no persona", s, p)
			}
		}
		differs = differs || !slices.Equal(c, a)
	}
	if !differs {
		t.Errorf("20 seeds gave one chain")
	}
	counts := map[string]int{}
	const n = 20000
	for s := uint64(0); s < n; s++ {
		counts[m.Chain(s, 1)[0]]++
	}
	for p, w := range m.Opening {
		if got := float64(counts[p]) / n; got < w-0.02 || got > w+0.02 {
			t.Errorf("opening %s drawn %.3f of the time, weight %.3f", p, got, w)
		}
	}
	if m.Provenance == "" {
		t.Errorf("the model says nothing of where it comes from")
	}
}

// TestRelease: questions first (an unanswerable one gets "I don't know"),
// then a failing test's symptom in the persona's clarity with the cause
// it believes, then boundaries, then edges; a wrong cause refuted twice
// is dropped.
func TestRelease(t *testing.T) {
	r := NewRelease(load(t))
	ids := func(s Selection) string {
		var out []string
		for _, it := range s.Items {
			out = append(out, it.ID)
		}
		return strings.Join(out, ",") + fmt.Sprintf(" unknown %d", len(s.Unknown))
	}
	steps := []struct {
		turn Turn
		want string
	}{
		{Turn{N: 1, Persona: "vague/wrong", Phase: "p1", Reply: "Which Python version do you use? And what database?", Failing: []string{"test_percent", "test_range"}}, "f1 unknown 1"},
		{Turn{N: 2, Persona: "vague/wrong", Phase: "p1", Reply: "I changed pricing.py.", Failing: []string{"test_percent", "test_range"}}, "s2,c1 unknown 0"},
		{Turn{N: 3, Persona: "precise/correct", Phase: "p1", Reply: "Done.", Failing: []string{"test_percent", "test_range"}}, "s1,c2 unknown 0"},
		{Turn{N: 4, Persona: "precise/correct", Phase: "p1", Reply: "Done.", Failing: []string{"test_range"}}, "s3 unknown 0"},
		{Turn{N: 5, Persona: "precise/none", Phase: "p1", Reply: "Done.", Failing: nil}, "b1 unknown 0"},
		{Turn{N: 6, Persona: "precise/none", Phase: "p1", Reply: "Done.", Failing: nil}, "e1 unknown 0"},
		{Turn{N: 7, Persona: "precise/none", Phase: "p1", Reply: "Done.", Failing: nil}, " unknown 0"},
	}
	for _, st := range steps {
		if got := ids(r.Select(st.turn)); got != st.want {
			t.Errorf("turn %d: %s, want %s", st.turn.N, got, st.want)
		}
	}
	// a wrong cause refuted twice is not volunteered again
	p := load(t)
	p.Pool = append(p.Pool, Item{ID: "c3", Phase: "p1", Kind: Cause, Veracity: "wrong", Text: "the cache returns stale prices"})
	w := NewRelease(p)
	w.said["c1"] = true
	for i := 0; i < 2; i++ {
		w.Select(Turn{Persona: "precise/none", Phase: "p1", Reply: "It is not the rounding: total truncates nothing, the cents are kept.", Failing: []string{"test_percent"}})
	}
	if w.contradicted["c1"] < weakAfter {
		t.Errorf("contradictions of c1: %d", w.contradicted["c1"])
	}
}

// TestNothingOutsidePool: over many turns of random personas, replies
// and failures, every part of every message is a selected pool item's
// own text or one of the renderer's fixed connecting phrases.
func TestNothingOutsidePool(t *testing.T) {
	pkg := load(t)
	fixed := map[string]bool{"I don't know that, I'm afraid.": true, "Please finish what is left and make sure everything still works.": true}
	for _, p := range Personas {
		for _, kind := range []string{Symptom, Cause, Boundary, Edge, Fact} {
			pp, _ := ParsePersona(p)
			fixed[leadIn(pp, Item{Kind: kind})] = true
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	replies := []string{"Done.", "What Python version?", "Which file?", "It is not the rounding in total, the cents are kept.", ""}
	for trial := 0; trial < 50; trial++ {
		r := NewRelease(pkg)
		for n := 1; n <= pkg.Budget; n++ {
			var failing []string
			for _, id := range tests {
				if rng.IntN(2) == 0 {
					failing = append(failing, id)
				}
			}
			persona := Personas[rng.IntN(len(Personas))]
			sel := r.Select(Turn{N: n, Persona: persona, Phase: "p1", Reply: replies[rng.IntN(len(replies))], Failing: failing})
			for _, part := range Render(persona, sel) {
				if part.Item == "" {
					if !fixed[part.Text] {
						t.Fatalf("%q is neither an item nor a fixed phrase", part.Text)
					}
					continue
				}
				i := slices.IndexFunc(sel.Items, func(it Item) bool { return it.ID == part.Item })
				if i < 0 || part.Text != sentenceOf(sel.Items[i].Text) {
					t.Fatalf("%q is not the selected item %s", part.Text, part.Item)
				}
			}
		}
	}
}
